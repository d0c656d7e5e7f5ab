// Command-line flags, named as the reference server names them: read off the flag table
// (bin/flags/), which says for each its kind of value, default and target.
import { FLAG_TABLE, type Flag, type Flags } from './flags/index.js'

export type { Flags } from './flags/index.js'
export { parseDuration } from './flags/kinds.js'

const BY_NAME = new Map(FLAG_TABLE.map(f => [f.name, f]))

// A copy: a caller that changes its settings must not change the next parse's defaults.
const initial = (f: Flag, env: NodeJS.ProcessEnv): unknown => typeof f.default === 'function' ? f.default(env) : structuredClone(f.default)

/**
 * `--name=value`, `--name value`, and a bool's bare `--name`; a refused value names its flag,
 * the kind refusing the text, the entry's check the final value.
 */
export function parseFlags (argv: string[], env: NodeJS.ProcessEnv = process.env): Flags {
  const settings: Record<string, unknown> = {}
  for (const f of FLAG_TABLE) settings[f.key] = initial(f, env)
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`)
    let [name, value] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]
    const f = BY_NAME.get(name)
    if (f === undefined) throw new Error(`unknown flag: --${name}`)
    if (value === undefined) {
      if (f.kind.type === '') value = ''
      else {
        value = argv[++i]
        if (value === undefined) throw new Error(`flag --${name} needs a value`)
      }
    }
    settings[f.key] = f.kind.parse(name, value, settings[f.key])
  }
  for (const f of FLAG_TABLE) f.check?.(settings[f.key])
  return settings as Flags
}
