// The README's "Kinds served" table is written from the kinds list (`npm run kinds-table`);
// this fails while the README holds another table, so a kind added to the list cannot be
// missing from it, nor a removed one linger.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { README, kindsTable, withTable } from '../../scripts/kinds-table.js'
import { RESOURCES } from '../../resources/index.js'

describe("the README's kinds table", () => {
  const readme = readFileSync(README, 'utf8')

  it('is the one `npm run kinds-table` writes from resources/index.ts', () => {
    assert.equal(readme, withTable(readme, kindsTable()), 'README.md\'s kinds table is not the kinds list\'s: run `npm run kinds-table`')
  })

  it('has a row for every kind in the list, once', () => {
    const rows = kindsTable().split('\n').slice(2)
    for (const r of RESOURCES) {
      assert.equal(rows.filter(row => row.startsWith(`| \`${r.apiVersion}\` | ${r.kind} | ${r.plural} | ${r.scope} |`)).length, 1, `${r.apiVersion} ${r.kind}`)
    }
  })

  it('refuses a README without the table\'s markers', () => {
    assert.throws(() => withTable('# no table here', kindsTable()), /lacks the markers/)
  })
})
