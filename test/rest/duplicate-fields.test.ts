// The repeated-key scan behind fieldValidation: paths spelled as the reference server spells
// them, and an end (never a hang) on text that is not whole JSON.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { duplicateFields } from '../../plugins/rest/duplicate-fields.js'

test('reports each repeated key by its path', () => {
  assert.deepEqual(duplicateFields('{"a":1,"a":2}'), ['a'])
  assert.deepEqual(duplicateFields('{"metadata":{"name":"x","labels":{"k":"1","k":"2"}}}'), ['metadata.labels.k'])
  assert.deepEqual(duplicateFields('{"items":[{"b":1},{"b":1,"b":2}]}'), ['items[1].b'])
  assert.deepEqual(duplicateFields('{"a\\u0062":1,"ab":2}'), ['ab'])
  assert.deepEqual(duplicateFields('{"s":"\\"a\\":1,\\"a\\":2"}'), [])
})

test('ends on truncated text with what it found so far', () => {
  for (const text of ['{', '{"a', '{"a":"x', '[1,2', '{"a":{"b":1', '{"a":[', '"abc']) assert.ok(Array.isArray(duplicateFields(text)), text)
  assert.deepEqual(duplicateFields('{"a":1,"a":2'), ['a'])
})
