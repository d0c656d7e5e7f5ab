// `npm run kinds-table`: writes the README's "Kinds served" table from the kinds list, so a kind
// added to resources/index.ts reaches the README by running this, never by hand. The test
// test/architecture/kinds-table.test.ts fails while the README's table differs from it.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { RESOURCES } from '../resources/index.js'
import { ALL_VERBS, type Resource } from '../resources/define.js'
import { DISCOVERED_ALIASES, GROUP_ALIASES } from '../resources/naming.js'

export const README = fileURLToPath(new URL('../README.md', import.meta.url))
export const BEGIN = '<!-- kinds table: written by `npm run kinds-table` from resources/index.ts -->'
export const END = '<!-- end of kinds table -->'

const code = (s: string): string => `\`${s}\``

/** Subresources a plugin adds to a kind (its behaviour lives in that plugin's layer). */
const ADDED_SUBRESOURCES: Record<string, string[]> = { serviceaccounts: ['token'] }

/** The upstream spellings of a group that serve it too: announced in discovery, or by path only. */
const aliasesOf = (group: string, version: string, kind: string): string[] =>
  Object.keys(GROUP_ALIASES).filter(upstream => GROUP_ALIASES[upstream] === group)
    .map(upstream => `${upstream}/${version}${kind}${DISCOVERED_ALIASES.includes(upstream) ? '' : ' (paths only)'}`)

function row (r: Resource): { apiVersion: string, kind: string, plural: string, scope: string, shortNames: string[], subresources: string[], alsoAs: string[], verbs: string } {
  const alsoAs = [
    ...aliasesOf(r.group, r.version, ''),
    ...(r.olderVersions ?? []).map(o => `${r.group === '' ? '' : `${r.group}/`}${o.version}${o.removed === undefined ? '' : ` (removed in ${o.removed}, off unless turned on)`}`),
    ...(r.servedAs ?? []).flatMap(c => [`${c.group}/${c.version} ${c.kind}`, ...aliasesOf(c.group, c.version, ` ${c.kind}`)])
  ]
  return {
    apiVersion: r.apiVersion,
    kind: r.kind,
    plural: r.plural,
    scope: r.scope,
    shortNames: r.shortNames ?? [],
    subresources: [...Object.keys(r.subresources ?? {}), ...(r.group === '' ? ADDED_SUBRESOURCES[r.plural] ?? [] : [])],
    alsoAs,
    verbs: ALL_VERBS.every(v => r.verbs.includes(v)) ? 'all' : r.verbs.join(', ')
  }
}

/** The table, one row per kind, sorted by apiVersion (core first) and kind. */
export function kindsTable (): string {
  const rows = RESOURCES.map(row).sort((a, b) =>
    (a.apiVersion.includes('/') ? 1 : 0) - (b.apiVersion.includes('/') ? 1 : 0) || a.apiVersion.localeCompare(b.apiVersion) || a.kind.localeCompare(b.kind))
  return [
    '| apiVersion | kind | plural | scope | short names | subresources | verbs | also served as |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(r => `| ${code(r.apiVersion)} | ${r.kind} | ${r.plural} | ${r.scope} | ${r.shortNames.join(', ')} | ${r.subresources.map(s => code(`/${s}`)).join(', ')} | ${r.verbs} | ${r.alsoAs.map(code).join(', ')} |`)
  ].join('\n')
}

/** The README with its table between the markers replaced by `table`. */
export function withTable (readme: string, table: string): string {
  const begin = readme.indexOf(BEGIN)
  const end = readme.indexOf(END)
  if (begin < 0 || end < begin) throw new Error(`README.md lacks the markers ${BEGIN} ... ${END}`)
  return `${readme.slice(0, begin + BEGIN.length)}\n${table}\n${readme.slice(end)}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(README, withTable(readFileSync(README, 'utf8'), kindsTable()))
}
