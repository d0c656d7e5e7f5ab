import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SortedKeys } from '../../storage/sorted-keys.js'

describe('SortedKeys', () => {
  it('ranges match a sorted set through random adds, removes and re-adds', () => {
    const live = new Set<string>()
    const keys = new SortedKeys(k => live.has(k))
    let seed = 42
    const rand = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
    const initial = Array.from({ length: 200 }, (_, i) => `/r/ns${i % 3}/o${i}`)
    for (const k of initial) live.add(k)
    keys.reset([...initial])
    for (let step = 0; step < 5000; step++) {
      const key = `/r/ns${rand(3)}/o${rand(400)}`
      if (live.has(key)) {
        live.delete(key)
        keys.remove()
      } else {
        live.add(key)
        keys.add(key)
      }
      if (step % 97 === 0) {
        for (const prefix of ['/r/', '/r/ns1/', '/r/ns2/o1', '/x/']) {
          assert.deepEqual(keys.range(prefix), [...live].filter(k => k.startsWith(prefix)).sort(), `step ${step} prefix ${prefix}`)
        }
      }
    }
  })

  it('orders by UTF-16 code units and appends in order without a merge', () => {
    const live = new Set(['/a/b', '/a/\u00e9', '/a/Z'])
    const keys = new SortedKeys(k => live.has(k))
    keys.reset([...live])
    live.add('/a/zz')
    keys.add('/a/zz')
    assert.deepEqual(keys.range('/a/'), ['/a/Z', '/a/b', '/a/zz', '/a/\u00e9'])
  })
})
