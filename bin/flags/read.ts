// The command line's grammar, over any part of the flag table: `--name=value`, `--name value`,
// and a bool's bare `--name`. Apart from bin/flags.ts, which loads the whole table, so that the
// start-up entry can read its own few flags first.
import type { Flag } from './spec.js'

// A copy: a caller that changes its settings must not change the next parse's defaults.
const initial = (f: Flag, env: NodeJS.ProcessEnv): unknown => typeof f.default === 'function' ? f.default(env) : structuredClone(f.default)

/**
 * Each entry's setting, by key. A refused value names its flag, the kind refusing the text, the
 * entry's check the final value. An argument that no entry names is refused; with
 * `passOverOthers` it is passed over instead, and so is a word after it that is not a flag (the
 * value it may take): the start-up entry reads its flags so, and the full parse checks them all.
 */
export function readFlags (argv: readonly string[], table: readonly Flag[], env: NodeJS.ProcessEnv, passOverOthers = false): Record<string, unknown> {
  const byName = new Map(table.map(f => [f.name, f]))
  const settings: Record<string, unknown> = {}
  for (const f of table) settings[f.key] = initial(f, env)
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) {
      if (passOverOthers) continue
      throw new Error(`unexpected argument "${arg}"`)
    }
    let [name, value] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]
    const f = byName.get(name)
    if (f === undefined) {
      if (passOverOthers) continue
      throw new Error(`unknown flag: --${name}`)
    }
    if (value === undefined) {
      if (f.kind.type === '') value = ''
      else {
        value = argv[++i]
        if (value === undefined) throw new Error(`flag --${name} needs a value`)
      }
    }
    settings[f.key] = f.kind.parse(name, value, settings[f.key])
  }
  for (const f of table) f.check?.(settings[f.key])
  return settings
}
