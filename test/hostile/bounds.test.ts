// The boundary checks on their own: nesting depth of raw JSON and of decoded values, and the
// bounded Warning header set.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { jsonTooDeep, valueTooDeep, MAX_NESTING_DEPTH } from '../../plugins/rest/bounded-decode.js'
import { warningHeaders } from '../../plugins/rest/warnings.js'

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8')
const arrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)

test('jsonTooDeep counts brackets outside strings only', () => {
  assert.equal(jsonTooDeep(bytes(arrays(MAX_NESTING_DEPTH))), false)
  assert.equal(jsonTooDeep(bytes(arrays(MAX_NESTING_DEPTH + 1))), true)
  assert.equal(jsonTooDeep(bytes(`{"a":${'{"b":'.repeat(MAX_NESTING_DEPTH - 1)}1${'}'.repeat(MAX_NESTING_DEPTH)}`)), false)
  // Brackets inside strings, with escaped quotes and backslashes before them, do not nest.
  assert.equal(jsonTooDeep(bytes(`{"a":"${'['.repeat(5000)}"}`)), false)
  assert.equal(jsonTooDeep(bytes(`{"a":"\\"${'['.repeat(5000)}"}`)), false)
  assert.equal(jsonTooDeep(bytes(`{"a":"\\\\",${'"b":['.repeat(1)}${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH + 1)}}`)), true)
  // Width is not depth.
  assert.equal(jsonTooDeep(bytes(`[${'[],'.repeat(100_000)}[]]`)), false)
})

test('valueTooDeep walks without recursion', () => {
  const deep = JSON.parse(arrays(50_000))
  assert.equal(valueTooDeep(deep), true)
  assert.equal(valueTooDeep(JSON.parse(arrays(MAX_NESTING_DEPTH))), false)
  assert.equal(valueTooDeep({ a: 'x', b: [1, { c: null }] }), false)
})

test('warningHeaders: distinct, at most 4 KiB, long messages cut once over the total', () => {
  assert.deepEqual(warningHeaders(['a', 'a', 'b']), ['299 - "a"', '299 - "b"'])
  const long = Array.from({ length: 40 }, (_, i) => `${i} ${'x'.repeat(500)}`)
  const out = warningHeaders(long)
  assert.ok(out.reduce((n, h) => n + h.length, 0) <= 4096)
  assert.ok(out.length >= 10)
  for (const h of out) assert.ok(h.length <= 256 + 10)
  assert.deepEqual(warningHeaders(['é']), [Buffer.from('299 - "é"', 'utf8').toString('latin1')])
})
