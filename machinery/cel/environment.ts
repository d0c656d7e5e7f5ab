// The CEL environment rules compile in: the engine's standard library plus the Kubernetes
// libraries the reference adds (apiserver/pkg/cel/library), declared once and cloned per use.
import { Environment } from '@marcbachmann/cel-js'
import { registerLists } from './library/lists.js'
import { registerRegex } from './library/regex.js'
import { registerStrings } from './library/strings.js'
import { registerUrls } from './library/urls.js'
import { registerQuantity } from './library/quantity.js'
import { registerIp } from './library/ip.js'
import { registerFormat } from './library/format.js'
import { registerSemver } from './library/semver.js'

let base: Environment | undefined

/** A fresh environment with every library, to declare a rule's variables and types in. */
export function celEnvironment (): Environment {
  if (base === undefined) {
    // Mixed-type list and map literals are refused, as the reference's HomogeneousAggregateLiterals.
    const env = new Environment({ homogeneousAggregateLiterals: true, enableOptionalTypes: true })
    for (const register of [registerLists, registerRegex, registerStrings, registerUrls, registerQuantity, registerIp, registerFormat, registerSemver]) register(env)
    base = env
  }
  return base.clone()
}
