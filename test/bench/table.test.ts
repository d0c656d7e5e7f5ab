// The benchmark's table helpers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatTable, medianOf } from '../../bench/table.js'
import { parseBenchFlags } from '../../bench/flags.js'

test('medianOf picks the item with the median key, the lower middle one for an even count', () => {
  const runs = [{ id: 'a', r: 0.7 }, { id: 'b', r: 0.5 }, { id: 'c', r: 0.9 }]
  assert.equal(medianOf(runs, x => x.r).id, 'a')
  assert.equal(medianOf([...runs, { id: 'd', r: 0.6 }], x => x.r).id, 'd')
  assert.equal(medianOf([runs[0]!], x => x.r).id, 'a')
  assert.throws(() => medianOf([], () => 0), /no items/)
})

test('--rounds takes a positive whole number; one by default', () => {
  assert.equal(parseBenchFlags([], {}).rounds, 1)
  assert.equal(parseBenchFlags(['--rounds', '3'], {}).rounds, 3)
  assert.throws(() => parseBenchFlags(['--rounds=2.5'], {}), /whole number/)
  assert.throws(() => parseBenchFlags(['--rounds=0'], {}), /positive/)
})

test('the table shows the ratio to two places and MISS for a failed target', () => {
  const text = formatTable([{ workload: 'get', figure: '100/s', ceiling: '200/s', ratio: 0.5, target: '>= 0.6x', pass: false }])
  assert.match(text, /\| get +\| 100\/s +\| 200\/s +\| 0\.50x \| >= 0\.6x \| MISS +\|/)
})
