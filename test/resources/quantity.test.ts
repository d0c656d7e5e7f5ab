// Quantities in the reference server's canonical form.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { canonicalQuantity, compareQuantities } from '../../resources/quantity.js'

const cases: Array<[string, string | undefined]> = [
  ['1Gi', '1Gi'], ['500m', '500m'], ['1.5Gi', '1536Mi'], ['1000m', '1'], ['1.5', '1500m'], ['0.1', '100m'],
  ['1000', '1k'], ['1500', '1500'], ['1e3', '1e3'], ['1.5e3', '1500'], ['0.5Ki', '512'], ['1024', '1024'],
  ['2048Ki', '2Mi'], ['0.0000000001', '1n'], ['12e6', '12e6'], ['1E', '1E'], ['-1Gi', '-1Gi'], ['0', '0'],
  ['abc', undefined], ['1.2.3', undefined], ['', undefined], ['10 Gi', undefined], ['1Gb', undefined]
]

describe('quantities', () => {
  for (const [input, want] of cases) {
    it(`${want === undefined ? 'rejects' : 'canonicalises'} "${input}"`, () => {
      assert.equal(canonicalQuantity(input), want)
    })
  }
  it('compares across suffixes', () => {
    assert.equal(compareQuantities('1Gi', '1024Mi'), 0)
    assert.equal(compareQuantities('1G', '1Gi'), -1)
    assert.equal(compareQuantities('2', '1500m'), 1)
  })
})
