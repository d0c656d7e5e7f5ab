// The JSONPath subset of printer columns and selectable fields: what it finds, what it refuses,
// and that any input either parses or is refused with a JsonPathError, in one pass.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { findAll, findFirst, JsonPathError, parseJsonPath } from '../../machinery/json-path.js'

const obj = {
  spec: { replicas: 3, 'dotted.key': 'x', list: [{ name: 'a', v: 1 }, { name: 'b', v: 2 }] },
  status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }] }
}

describe('JSONPath for printer columns', () => {
  it('finds fields, indexes, wildcards and filtered items', () => {
    assert.equal(findFirst(parseJsonPath('.spec.replicas'), obj), 3)
    assert.equal(findFirst(parseJsonPath('{.spec.replicas}'), obj), 3)
    assert.equal(findFirst(parseJsonPath(".spec['dotted.key']"), obj), 'x')
    assert.equal(findFirst(parseJsonPath('.spec.list[1].name'), obj), 'b')
    assert.equal(findFirst(parseJsonPath('.spec.list[-1].v'), obj), 2)
    assert.deepEqual(findAll(parseJsonPath('.spec.list[*].name'), obj), ['a', 'b'])
    assert.equal(findFirst(parseJsonPath('.status.conditions[?(@.type=="Ready")].status'), obj), 'True')
    assert.equal(findFirst(parseJsonPath(".status.conditions[?(@.type != 'Ready')].type"), obj), 'Synced')
    assert.equal(findFirst(parseJsonPath('.spec.list[?(@.v == 2)].name'), obj), 'b')
    assert.equal(findFirst(parseJsonPath('.spec.missing.deeper'), obj), undefined)
  })

  it('refuses what it does not support with a JsonPathError', () => {
    for (const bad of ['.spec..replicas', '.spec[', '.spec.list[?(@.v > 1)]', "['unterminated", '.spec.']) {
      assert.throws(() => parseJsonPath(bad), JsonPathError, bad)
    }
  })

  it('parses or refuses any input, without throwing anything else', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (text) => {
      try { parseJsonPath(text) } catch (err) { assert.ok(err instanceof JsonPathError, String(err)) }
    }), { numRuns: 2000 })
    fc.assert(fc.property(fc.stringMatching(/^[.[\]?()@'"=!*a-z0-9 {}-]{0,60}$/), (text) => {
      try { parseJsonPath(text) } catch (err) { assert.ok(err instanceof JsonPathError, String(err)) }
    }), { numRuns: 2000 })
  })

  it('reads a long path in one pass', () => {
    const long = '.a'.repeat(50_000)
    assert.equal(parseJsonPath(long).length, 50_000)
    assert.equal(parseJsonPath(`.a${'[0]'.repeat(50_000)}`).length, 50_001)
    assert.equal(parseJsonPath(`.a${"['x']".repeat(50_000)}`).length, 50_001)
    assert.throws(() => parseJsonPath('['.repeat(100_000)), JsonPathError)
    assert.throws(() => parseJsonPath(`.a[?(@${'.b'.repeat(50_000)}`), JsonPathError)
  })
})
