// `--help`: the flag table by section, as the reference server prints its flag sets.
import { FLAG_TABLE, SECTIONS, type Flag } from './flags/index.js'

const INDENT = '                '

/** The default as pflag prints it, after the text; none for a zero value. */
function defaultNote (f: Flag): string {
  const shown = f.defaultText ?? (typeof f.default === 'function' ? undefined : f.kind.show(f.default))
  return shown === undefined ? '' : ` (default ${shown})`
}

function entry (f: Flag): string[] {
  const names = f.short === undefined ? `      --${f.name}` : `  -${f.short}, --${f.name}`
  const lines = [`${names}${f.kind.type === '' ? '' : ` ${f.kind.type}`}`]
  for (const line of `${f.help}${defaultNote(f)}`.split('\n')) lines.push(INDENT + line)
  return lines
}

export function usage (): string {
  const lines = ['Usage: svc-apiserver [flags]']
  for (const section of SECTIONS) {
    // Sorted within a section, as pflag prints a flag set.
    const flags = FLAG_TABLE.filter(f => f.section === section).sort((a, b) => a.name.localeCompare(b.name))
    if (flags.length === 0) continue
    lines.push('', `${section} flags:`, '')
    for (const f of flags) lines.push(...entry(f))
  }
  return lines.join('\n') + '\n'
}

/** The flags --help documents: every entry of the table. */
export const DOCUMENTED_FLAGS: readonly string[] = FLAG_TABLE.map(f => f.name)
