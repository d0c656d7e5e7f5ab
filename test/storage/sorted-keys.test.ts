import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SortedKeys, prefixEnd } from '../../storage/sorted-keys.js'
import { nextTurn } from '../../storage/slices.js'

describe('SortedKeys', () => {
  it('ranges, pages and ranks match a sorted set through random adds, removes and re-adds', () => {
    const live = new Set<string>()
    const keys = new SortedKeys()
    let seed = 42
    const rand = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
    // Enough keys that the chunks split and merge.
    const initial = Array.from({ length: 6000 }, (_, i) => `/r/ns${i % 3}/o${i}`)
    for (const k of initial) live.add(k)
    keys.reset([...initial])
    for (let step = 0; step < 20_000; step++) {
      const key = `/r/ns${rand(3)}/o${rand(9000)}`
      if (live.has(key)) {
        live.delete(key)
        keys.remove(key)
      } else {
        live.add(key)
        keys.add(key)
      }
      if (step % 1997 === 0) {
        const sorted = [...live].sort()
        assert.equal(keys.size, sorted.length)
        for (const prefix of ['/r/', '/r/ns1/', '/r/ns2/o1', '/x/']) {
          assert.deepEqual(keys.range(prefix), sorted.filter(k => k.startsWith(prefix)), `step ${step} prefix ${prefix}`)
          assert.equal(keys.rank(prefixEnd(prefix)) - keys.rank(prefix), sorted.filter(k => k.startsWith(prefix)).length)
        }
        const start = `/r/ns1/o${rand(9000)}`
        const page: string[] = []
        for (const k of keys.from(start)) { if (page.length === 50) break; page.push(k) }
        assert.deepEqual(page, sorted.filter(k => k >= start).slice(0, 50), `page from ${start}`)
        assert.equal(keys.rank(start), sorted.filter(k => k < start).length)
      }
    }
  })

  it('orders by UTF-16 code units and empties cleanly', () => {
    const keys = new SortedKeys()
    keys.reset(['/a/b', '/a/\u00e9', '/a/Z'])
    keys.add('/a/zz')
    assert.deepEqual(keys.range('/a/'), ['/a/Z', '/a/b', '/a/zz', '/a/\u00e9'])
    for (const k of ['/a/b', '/a/\u00e9', '/a/Z', '/a/zz']) keys.remove(k)
    assert.deepEqual(keys.range('/a/'), [])
    keys.add('/a/x')
    assert.deepEqual(keys.range('/'), ['/a/x'])
  })

  it('sorts a fill\'s keys in slices, letting the event loop turn, to the order a whole sort gives', async () => {
    let seed = 11
    const rand = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
    const given = Array.from({ length: 200_000 }, (_, i) => `/r/ns${rand(50)}/o${rand(1_000_000)}-${i}${i % 7 === 0 ? '\u00e9' : ''}`)
    const keys = new SortedKeys()
    keys.reset([...given])
    let turns = 0
    let done = false
    const settled = keys.settleInSlices().then(() => { done = true })
    while (!done) {
      await nextTurn()
      turns++
    }
    await settled
    assert.ok(turns > 1, 'other work ran while the keys were sorted')
    const sorted = [...given].sort()
    assert.deepEqual(keys.range('/r/'), sorted)
    assert.equal(keys.rank('/r/ns1/'), sorted.filter(k => k < '/r/ns1/').length)
  })

  it('gives a sort in slices up when a use sorts first, or a reset replaces the keys', async () => {
    const keys = new SortedKeys()
    keys.reset(Array.from({ length: 50_000 }, (_, i) => `/k/${(i * 7919) % 50_000}`))
    const settling = keys.settleInSlices()
    keys.add('/k/new')
    await settling
    assert.equal(keys.size, 50_001)
    assert.equal(keys.range('/k/').length, 50_001)
    keys.reset(['/b', '/a'])
    const again = keys.settleInSlices()
    keys.reset(['/d', '/c'])
    await again
    assert.deepEqual(keys.range('/'), ['/c', '/d'])
  })
})
