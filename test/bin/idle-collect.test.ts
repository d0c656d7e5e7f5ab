import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { getHeapStatistics } from 'node:v8'
import { collectAvailableGarbage, grownEnough, startIdleCollect } from '../../bin/idle-collect.js'

const MiB = 1024 * 1024

/** `mib` MiB as 2 MiB arrays: objects that size live in the large-object space, which only a major collection frees. */
const largeArrays = (mib: number): number[][] => Array.from({ length: mib / 2 }, (_, i) => new Array<number>(256 * 1024).fill(i + 0.5))

describe('idle collection', () => {
  it('collects when the committed heap grew by the larger of the floor and a quarter', () => {
    assert.equal(grownEnough(100 * MiB, 0, 32 * MiB), true, 'nothing known yet: any heap past the floor')
    assert.equal(grownEnough(20 * MiB, 0, 32 * MiB), false)
    assert.equal(grownEnough(201 * MiB, 160 * MiB, 32 * MiB), true)
    assert.equal(grownEnough(190 * MiB, 160 * MiB, 32 * MiB), false, 'a quarter of 160 MiB is 40 MiB')
    assert.equal(grownEnough(60 * MiB, 40 * MiB, 8 * MiB), true)
  })

  it('reclaims unreachable objects through the inspector', async () => {
    let held: number[][] | undefined = largeArrays(32)
    const before = getHeapStatistics().used_heap_size
    assert.equal(held.length, 16)
    held = undefined
    await collectAvailableGarbage()
    const after = getHeapStatistics().used_heap_size
    assert.ok(after < before - 24 * MiB, `used heap ${Math.round(before / MiB)} MiB -> ${Math.round(after / MiB)} MiB`)
  })

  it('collects once the loop is idle, then not again while nothing grows', async () => {
    const collections: Array<{ before: number, after: number }> = []
    const stop = startIdleCollect({ intervalMs: 20, idleChecks: 2, minGrowthBytes: 1, onCollect: (before, after) => collections.push({ before, after }) })
    try {
      const deadline = Date.now() + 5000
      while (collections.length === 0 && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20))
      assert.equal(collections.length, 1, 'the first quiet spell collects')
      await new Promise(resolve => setTimeout(resolve, 300))
      assert.equal(collections.length, 1, 'no growth since: no second collection')
    } finally {
      stop()
    }
  })
})
