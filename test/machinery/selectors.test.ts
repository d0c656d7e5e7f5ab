import { strict as assert } from 'node:assert'
import { describe, it } from 'node:test'
import { matchesLabels, parseLabelSelector } from '../../machinery/selectors.js'

describe('label selector parsing', () => {
  it('a requirement written more than once is one requirement, the first in place', () => {
    assert.deepEqual(parseLabelSelector('a=b, tier in (web,api),a=b,!legacy,tier in (web,api)'), [
      { key: 'a', op: '=', values: ['b'] },
      { key: 'tier', op: 'in', values: ['web', 'api'] },
      { key: 'legacy', op: '!', values: [] }
    ])
    // Spelt otherwise, the same condition stays two requirements; matching is the same either way.
    const twice = parseLabelSelector('a=b,a==b')
    assert.equal(twice.length, 2)
    assert.equal(matchesLabels(twice, { a: 'b' }), true)
    assert.equal(matchesLabels(twice, { a: 'c' }), false)
  })

  it('a repeated invalid requirement is still refused, with the reference message', () => {
    assert.throws(() => parseLabelSelector('a=b,'.repeat(1000) + 'a=b,b=-x-,b=-x-'), /values\[0\]\[b\]: Invalid value: "-x-"/)
    assert.throws(() => parseLabelSelector('a=b,,a=b'), /found '', expected/)
  })

  it('a 300 KB selector of one requirement repeated selects as that requirement', () => {
    const selector = parseLabelSelector('a=b,'.repeat(75_000) + 'a=b')
    assert.deepEqual(selector, [{ key: 'a', op: '=', values: ['b'] }])
    assert.equal(matchesLabels(selector, { a: 'b' }), true)
  })
})
