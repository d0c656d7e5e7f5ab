// Command-line flags, named as the reference server names them: read off the flag table
// (bin/flags/), which says for each its kind of value, default and target.
import { FLAG_TABLE, type Flags } from './flags/index.js'
import { readFlags } from './flags/read.js'

export type { Flags } from './flags/index.js'
export { parseDuration } from './flags/kinds.js'

/**
 * `--name=value`, `--name value`, and a bool's bare `--name`; a refused value names its flag,
 * the kind refusing the text, the entry's check the final value.
 */
export function parseFlags (argv: string[], env: NodeJS.ProcessEnv = process.env): Flags {
  return readFlags(argv, FLAG_TABLE, env) as Flags
}
