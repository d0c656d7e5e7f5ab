import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createBatcher } from '../../storage/batcher.js'

/** A run that the test settles by hand, recording each batch it was given. */
function manualRun () {
  const batches: number[][] = []
  const settle: Array<(results: Array<number | Error>) => void> = []
  const run = (items: number[]): Promise<Array<number | Error>> => {
    batches.push(items)
    return new Promise(resolve => settle.push(resolve))
  }
  return { batches, settle, run }
}

const tick = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

describe('batcher', () => {
  it('groups items pushed in one tick, and the ones pushed meanwhile into the next batch', async () => {
    const m = manualRun()
    const b = createBatcher<number, number>(m.run, { maxItems: 100, maxWeight: 1e9, weight: () => 1, concurrency: 2 })
    const first = [1, 2, 3].map(n => b.push(n))
    await tick()
    const second = [4, 5].map(n => b.push(n))
    await tick()
    // One batch in flight and no full batch waiting: the second waits, then goes as one.
    assert.deepEqual(m.batches, [[1, 2, 3]])
    m.settle[0]!([10, 20, 30])
    assert.deepEqual(await Promise.all(first), [10, 20, 30])
    await tick()
    assert.deepEqual(m.batches, [[1, 2, 3], [4, 5]])
    m.settle[1]!([40, 50])
    assert.deepEqual(await Promise.all(second), [40, 50])
    await b.drain()
  })

  it('starts a concurrent batch only when a full one waits, and never more than concurrency', async () => {
    const m = manualRun()
    const b = createBatcher<number, number>(m.run, { maxItems: 3, maxWeight: 1e9, weight: () => 1, concurrency: 2 })
    const all = [1].map(n => b.push(n))
    await tick()
    all.push(...[2, 3].map(n => b.push(n)))
    await tick()
    assert.deepEqual(m.batches, [[1]])
    all.push(b.push(4))
    await tick()
    assert.deepEqual(m.batches, [[1], [2, 3, 4]])
    all.push(...[5, 6, 7].map(n => b.push(n)))
    await tick()
    assert.equal(m.batches.length, 2, 'two in flight already')
    m.settle[0]!([1])
    await tick()
    assert.deepEqual(m.batches, [[1], [2, 3, 4], [5, 6, 7]])
    m.settle[1]!([2, 3, 4])
    m.settle[2]!([5, 6, 7])
    assert.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5, 6, 7])
  })

  it('starts a second batch beside a small one once as many items wait as it holds, and evenFrom', async () => {
    const m = manualRun()
    const b = createBatcher<number, number>(m.run, { maxItems: 100, maxWeight: 1e9, weight: () => 1, concurrency: 2, evenFrom: 3 })
    const all = [b.push(1)]
    await tick()
    all.push(b.push(2), b.push(3))
    await tick()
    // Two wait beside a batch of one: fewer than evenFrom.
    assert.deepEqual(m.batches, [[1]])
    all.push(b.push(4))
    await tick()
    assert.deepEqual(m.batches, [[1], [2, 3, 4]])
    // Beside a batch of three, the next waits for three more, and for a batch to end.
    all.push(...[5, 6, 7, 8].map(n => b.push(n)))
    await tick()
    assert.equal(m.batches.length, 2)
    m.settle[1]!([2, 3, 4])
    await tick()
    assert.deepEqual(m.batches, [[1], [2, 3, 4], [5, 6, 7, 8]])
    all.push(...[9, 10, 11].map(n => b.push(n)))
    await tick()
    m.settle[0]!([1])
    await tick()
    // Three wait beside a batch of four: they wait for it, not only for a free slot.
    assert.equal(m.batches.length, 3)
    m.settle[2]!([5, 6, 7, 8])
    await tick()
    assert.deepEqual(m.batches, [[1], [2, 3, 4], [5, 6, 7, 8], [9, 10, 11]])
    m.settle[3]!([9, 10, 11])
    assert.deepEqual(await Promise.all(all), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
  })

  it('counts a full batch by weight too, and always takes at least one item', async () => {
    const m = manualRun()
    const b = createBatcher<number, number>(m.run, { maxItems: 100, maxWeight: 10, weight: n => n, concurrency: 2 })
    const all = [b.push(1)]
    await tick()
    all.push(b.push(20), b.push(4), b.push(6))
    await tick()
    // 30 waiting weighs over 10: a second batch, holding the heavy item alone.
    assert.deepEqual(m.batches, [[1], [20]])
    m.settle[1]!([20])
    await tick()
    assert.deepEqual(m.batches, [[1], [20], [4, 6]])
    m.settle[0]!([1])
    m.settle[2]!([4, 6])
    assert.deepEqual(await Promise.all(all), [1, 20, 4, 6])
  })

  it('fails one item for an Error result, and every item of a batch whose run throws', async () => {
    let calls = 0
    const b = createBatcher<number, number>(async (items) => {
      calls++
      if (calls === 2) throw new Error('connection lost')
      return items.map(n => n === 2 ? new Error(`bad ${n}`) : n)
    }, { maxItems: 100, maxWeight: 1e9, weight: () => 1 })
    const first = await Promise.allSettled([1, 2, 3].map(n => b.push(n)))
    assert.deepEqual(first.map(r => r.status), ['fulfilled', 'rejected', 'fulfilled'])
    assert.match(String((first[1] as PromiseRejectedResult).reason), /bad 2/)
    const second = await Promise.allSettled([4, 5].map(n => b.push(n)))
    assert.deepEqual(second.map(r => r.status === 'rejected' && String(r.reason)), ['Error: connection lost', 'Error: connection lost'])
    assert.deepEqual(await b.push(6), 6)
    await b.drain()
  })
})
