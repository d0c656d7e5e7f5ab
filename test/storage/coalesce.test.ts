import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { coalesce } from '../../storage/coalesce.js'

describe('coalesce', () => {
  it('shares a run only among callers that asked before it started', async () => {
    let runs = 0
    let value = 0
    const gates: Array<() => void> = []
    const read = coalesce(async () => {
      runs++
      const seen = value
      await new Promise<void>(resolve => gates.push(resolve))
      return seen
    })
    const first = read()
    value = 1 // a write after the first read began: later callers must see it
    const second = read()
    const third = read()
    assert.equal(runs, 1)
    gates.shift()!()
    assert.equal(await first, 0)
    await new Promise(resolve => setImmediate(resolve))
    assert.equal(runs, 2)
    gates.shift()!()
    assert.equal(await second, 1)
    assert.equal(await third, 1)
    assert.equal(runs, 2)
  })

  it('lets a failed run fail only its own callers', async () => {
    let fail = true
    const read = coalesce(async () => {
      if (fail) { fail = false; throw new Error('boom') }
      return 'ok'
    })
    await assert.rejects(read(), /boom/)
    assert.equal(await read(), 'ok')
  })
})
