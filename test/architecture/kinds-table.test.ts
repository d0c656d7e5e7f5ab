// The README's "Kinds served" table against the kinds' definitions: every kind in RESOURCES has
// one row with its apiVersion, kind, plural and scope as its definition states them, and every
// row is a kind served.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { RESOURCES } from '../../resources/index.js'

const README = new URL('../../README.md', import.meta.url)

// Kinds registered outside RESOURCES, by the plugin that answers them, with the row they have.
// `file` must define it with these kind, plural and scope.
const REGISTERED_ELSEWHERE: ReadonlyArray<{ row: string, file: string, why: string }> = [
  { row: 'authentication.svc.io/v1 TokenReview tokenreviews Cluster', file: 'auth/token-review.ts', why: 'the authentication chain answers it' }
]

interface Row { apiVersion: string, kind: string, plural: string, scope: string }

/** The rows of the first table under `## Kinds served`, its header and separator left out. */
function kindsTable (markdown: string): Row[] {
  const lines = markdown.split('\n')
  const start = lines.findIndex(line => line.trim() === '## Kinds served')
  assert.ok(start >= 0, 'README.md has no "## Kinds served" section')
  const rows: Row[] = []
  let inTable = false
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break
    if (!line.startsWith('|')) {
      if (inTable) break
      continue
    }
    inTable = true
    const cells = line.split('|').slice(1, -1).map(cell => cell.trim().replace(/^`|`$/g, ''))
    if (cells[0] === 'apiVersion' || /^-+$/.test(cells[0])) continue
    const [apiVersion, kind, plural, scope] = cells
    rows.push({ apiVersion, kind, plural, scope })
  }
  return rows
}

const show = (r: Row): string => `${r.apiVersion} ${r.kind} ${r.plural} ${r.scope}`

describe("the README's kinds table", () => {
  const rows = kindsTable(readFileSync(README, 'utf8'))
  const table = rows.map(show)
  const defined = RESOURCES.map(r => show({ apiVersion: r.apiVersion, kind: r.kind, plural: r.plural, scope: r.scope }))
  const elsewhere = REGISTERED_ELSEWHERE.map(e => e.row)

  it('has one row per kind', () => {
    assert.ok(rows.length > 0)
    assert.deepEqual(table.filter((row, i) => table.indexOf(row) !== i), [], 'repeated rows')
  })

  it('lists every kind in RESOURCES as its definition states it', () => {
    assert.deepEqual(defined.filter(row => !table.includes(row)), [])
  })

  it('lists nothing that is not served', () => {
    assert.deepEqual(table.filter(row => !defined.includes(row) && !elsewhere.includes(row)), [])
  })

  it('lists the kinds registered outside RESOURCES', () => {
    assert.deepEqual(elsewhere.filter(row => !table.includes(row)), [])
    for (const { row, file } of REGISTERED_ELSEWHERE) {
      const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
      const [, kind, plural, scope] = row.split(' ')
      for (const field of [`kind: '${kind}'`, `plural: '${plural}'`, `scope: '${scope}'`]) {
        assert.ok(source.includes(field), `${file} does not define ${field}`)
      }
    }
  })
})
