// The flag table: every flag the server takes, by family. Parsing (bin/flags.ts), --help
// (bin/help.ts) and the README check read it; no flag is listed anywhere else.
import { ADMISSION_FLAGS } from './admission.js'
import { AUDIT_FLAGS } from './audit.js'
import { AUTHENTICATION_FLAGS } from './authentication.js'
import { AUTHORIZATION_FLAGS } from './authorization.js'
import { CONTROLLER_FLAGS } from './controllers.js'
import { FEATURE_FLAGS } from './features.js'
import type { Kind } from './kinds.js'
import { NODE_AGENT_FLAGS } from './node-agent.js'
import { SERVING_FLAGS } from './serving.js'
import type { Flag } from './spec.js'

export const FLAGS = [
  ...SERVING_FLAGS,
  ...FEATURE_FLAGS,
  ...AUTHENTICATION_FLAGS,
  ...AUTHORIZATION_FLAGS,
  ...ADMISSION_FLAGS,
  ...AUDIT_FLAGS,
  ...NODE_AGENT_FLAGS,
  ...CONTROLLER_FLAGS
] as const

type Value<F> = F extends { kind: Kind<infer T> } ? T : never

/** The parsed settings: one field per flag, named by its entry's key, of its kind's type. */
export type Flags = { [F in typeof FLAGS[number] as F['key']]: Value<F> }

export const FLAG_TABLE: readonly Flag[] = FLAGS

export { SECTIONS, type Flag, type Section } from './spec.js'
