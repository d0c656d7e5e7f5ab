// Quantities in the reference server's canonical form (apimachinery resource.ParseQuantity and
// Quantity.String at v0.33: quantity.go, amount.go, suffix.go).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { addQuantities, canonicalQuantity, compareQuantities, decodeQuantity, milliValue, subtractQuantities } from '../../resources/quantity.js'

const MAX_INT64 = '9223372036854775807'

const cases: Array<[string, string | undefined]> = [
  ['1Gi', '1Gi'], ['500m', '500m'], ['1.5Gi', '1536Mi'], ['1000m', '1'], ['1.5', '1500m'], ['0.1', '100m'],
  ['1000', '1k'], ['1500', '1500'], ['1e3', '1e3'], ['1.5e3', '1500'], ['0.5Ki', '512'], ['1024', '1024'],
  ['2048Ki', '2Mi'], ['0.0000000001', '1n'], ['12e6', '12e6'], ['1E', '1E'], ['-1Gi', '-1Gi'], ['0', '0'],
  ['abc', undefined], ['1.2.3', undefined], ['', undefined], ['10 Gi', undefined], ['1Gb', undefined],
  // ParseQuantity itself refuses surrounding space; only the JSON decoder trims it.
  [' 1', undefined], ['1 ', undefined],
  // Binary quantities are capped at 2^63-1, decimal ones are not.
  ['16Ei', MAX_INT64], ['8Ei', MAX_INT64], ['7Ei', '7Ei'], ['-16Ei', `-${MAX_INT64}`], ['9Ei', MAX_INT64],
  ['9223372036854775807Ki', MAX_INT64], ['99999999999999999999999Ki', MAX_INT64], ['12E', '12E'],
  ['1.0000000000000000000000000000001Ki', '1024000000001n'],
  // A decimal value past E (10^18) keeps its digits but loses its suffix, as the reference prints it.
  ['1000E', '1'], ['1' + '0'.repeat(30), '1'], ['123' + '0'.repeat(24), '123'], ['10E', '10E'], ['1e30', '1e30'],
  // The client's own text is kept when it is already in canonical form by the fast path's test.
  ['+1', '+1'], ['01', '01'], ['1E3', '1E3'], ['+3Mi', '+3Mi'], ['1024Ki', '1Mi'],
  // Things the reference's scanner accepts.
  ['.', '0'], ['-', '0'], ['Ki', '0'], ['1.', '1.'], ['.5', '500m'], ['1.G', '1.G'], ['0.9n', '1n'], ['3.001n', '4n'],
  ['1.1E-9', '2e-9'], ['0.000000000001Ki', '2n'], ['-.e-20', undefined], ['e', undefined], ['1e', undefined],
  ['1e99999999999999999999', undefined], ['1' + '0'.repeat(100_000) + 'e-100000', '1']
]

describe('quantities', () => {
  for (const [input, want] of cases) {
    it(`${want === undefined ? 'rejects' : 'canonicalises'} "${input.length > 40 ? input.slice(0, 20) + '...' : input}"`, () => {
      assert.equal(canonicalQuantity(input), want)
    })
  }
  it('compares across suffixes', () => {
    assert.equal(compareQuantities('1Gi', '1024Mi'), 0)
    assert.equal(compareQuantities('1G', '1Gi'), -1)
    assert.equal(compareQuantities('2', '1500m'), 1)
    assert.equal(compareQuantities('1e1000', '1' + '0'.repeat(999)), 1)
    assert.equal(compareQuantities('-1e1000', '-1'), -1)
  })
  it('adds and subtracts exactly, in the first operand\'s format', () => {
    assert.equal(addQuantities('1Gi', '1Gi'), '2Gi')
    assert.equal(addQuantities('0', '1Gi'), '1Gi')
    assert.equal(addQuantities('250m', '750m'), '1')
    assert.equal(subtractQuantities('1', '1500m'), '-500m')
    assert.equal(addQuantities('1e3', '1'), '1001')
    assert.equal(addQuantities('999999999999999999999', '1'), '1')
  })
  it('reads milli-values rounded up', () => {
    assert.equal(milliValue('1.5'), 1500n)
    assert.equal(milliValue('1n'), 1n)
    assert.equal(milliValue('-1n'), -1n)
  })
})

describe('quantities in JSON (Quantity.UnmarshalJSON)', () => {
  const decoded: Array<[string | number, string | undefined]> = [
    [' 1Gi ', '1Gi'], ['\u00a01\u3000', '1'], ['1\u0085', '1'], [5, '5'], [0.5, '500m'], [-1, '-1'], [1e21, '1e+21'],
    ['', undefined], [' ', undefined], ['\ufeff1', undefined]
  ]
  for (const [input, want] of decoded) {
    it(`${want === undefined ? 'rejects' : 'decodes'} ${JSON.stringify(input)}`, () => {
      assert.equal(decodeQuantity(input), want)
    })
  }
})
