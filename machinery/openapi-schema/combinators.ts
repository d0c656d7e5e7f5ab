// allOf, anyOf, oneOf and not, as kube-openapi's schemaPropsValidator: the alternative with the
// most passed checks lends its errors when none validates.
import type { JSONSchemaProps } from './types.js'
import * as m from './messages.js'
import { merge, newResult, validateNode } from './validate.js'
import type { Result } from './validate.js'

export function combinators (s: JSONSchemaProps, path: string, data: unknown): Result {
  const main = newResult()
  const quoted = JSON.stringify(path)

  if (s.anyOf !== undefined && s.anyOf.length > 0) {
    let best: Result | undefined
    let first: Result | undefined
    for (const alt of s.anyOf) {
      const r = validateNode(alt, path, data)
      if (r.errors.length === 0) { best = undefined; first = r; break }
      if (best === undefined || r.matchCount > best.matchCount) best = r
    }
    if (first === undefined) main.errors.push(m.composite(`${quoted} must validate at least one schema (anyOf)`))
    if (best !== undefined) merge(main, best)
    else if (first !== undefined) merge(main, first)
  }

  if (s.oneOf !== undefined && s.oneOf.length > 0) {
    let best: Result | undefined
    let first: Result | undefined
    let validated = 0
    for (const alt of s.oneOf) {
      const r = validateNode(alt, path, data)
      if (r.errors.length === 0) {
        validated++
        best = undefined
        first ??= r
        continue
      }
      if (validated === 0 && (best === undefined || r.matchCount > best.matchCount)) best = r
    }
    if (validated !== 1) {
      const why = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`
      main.errors.push(m.composite(`${quoted} must validate one and only one schema (oneOf). ${why}`))
      if (best !== undefined) merge(main, best)
    } else if (first !== undefined) merge(main, first)
  }

  if (s.allOf !== undefined && s.allOf.length > 0) {
    let validated = 0
    for (const alt of s.allOf) {
      const r = validateNode(alt, path, data)
      if (r.errors.length === 0) validated++
      merge(main, r)
    }
    if (validated !== s.allOf.length) {
      main.errors.push(m.composite(`${quoted} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`))
    }
  }

  if (s.not !== undefined && validateNode(s.not, path, data).errors.length === 0) {
    main.errors.push(m.composite(`${quoted} must not validate the schema (not)`))
  }

  main.matchCount++
  return main
}
