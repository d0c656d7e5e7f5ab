// The behaviour every Storage backend owes its callers (k8s storagetesting, kine's conformance):
// run it once per backend with a factory that opens a store on an empty database whose
// compact() keeps no minimum history.
import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import { type Storage, StorageError, type StorageErrorCode, type StoredObject } from '../../storage/interface.js'
import { PREFIX, configMap, key } from './fixtures.js'

export type MakeStorage = (t: TestContext) => Promise<Storage>

async function rejectsWith (p: Promise<unknown>, code: StorageErrorCode, revision?: number): Promise<StorageError> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof StorageError, `expected StorageError, got ${String(err)}`)
    assert.equal(err.code, code)
    if (revision !== undefined) assert.equal(err.revision, revision)
    return err
  }
  assert.fail(`expected ${code}, got success`)
}

const names = (items: StoredObject[]): string[] => items.map(i => i.key.slice(PREFIX.length))

export function storageContract (name: string, make: MakeStorage): void {
  describe(`storage contract: ${name}`, () => {
    it('stamps the revision into resourceVersion and keeps the exact bytes', async (t) => {
      const s = await make(t)
      const value = configMap('a', 'one', JSON.parse('{"b":"2","a":"\\u0001 \\"quoted\\" é 😀","__proto__":"x"}'))
      const created = await s.write({ type: 'create', key: key('a', 'one'), value })
      assert.equal(created.revision, 1)
      assert.equal(created.json,
        '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"one","namespace":"a","labels":{},"resourceVersion":"1"},' +
        '"data":{"b":"2","a":"\\u0001 \\"quoted\\" é 😀","__proto__":"x"}}')
      assert.equal(value.metadata.resourceVersion, undefined, 'the caller\'s object is not mutated')
      assert.deepEqual(await s.get(key('a', 'one')), created)
      assert.equal(await s.get(key('a', 'missing')), undefined)
    })

    it('replaces an existing resourceVersion in place', async (t) => {
      const s = await make(t)
      const value = { apiVersion: 'v1', metadata: { resourceVersion: '77', name: 'x' }, kind: 'K' }
      const created = await s.write({ type: 'create', key: key('a', 'x'), value })
      assert.equal(created.json, '{"apiVersion":"v1","metadata":{"resourceVersion":"1","name":"x"},"kind":"K"}')
    })

    it('rejects create of an existing key with KeyExists and its revision', async (t) => {
      const s = await make(t)
      await s.write({ type: 'create', key: key('a', 'one'), value: configMap('a', 'one') })
      const updated = await s.write({ type: 'update', key: key('a', 'one'), value: configMap('a', 'one'), expectRevision: 1 })
      await rejectsWith(s.write({ type: 'create', key: key('a', 'one'), value: configMap('a', 'one') }), 'KeyExists', updated.revision)
      assert.equal(await s.currentRevision(), 2, 'a failed write allocates no revision')
    })

    it('updates with compare-and-swap: Conflict with the current revision, NotFound when absent', async (t) => {
      const s = await make(t)
      const created = await s.write({ type: 'create', key: key('a', 'one'), value: configMap('a', 'one') })
      const updated = await s.write({ type: 'update', key: key('a', 'one'), value: configMap('a', 'one', { v: '2' }), expectRevision: created.revision })
      assert.equal(updated.revision, 2)
      assert.match(updated.json, /"resourceVersion":"2"/)
      assert.deepEqual(await s.get(key('a', 'one')), updated)
      await rejectsWith(s.write({ type: 'update', key: key('a', 'one'), value: configMap('a', 'one'), expectRevision: created.revision }), 'Conflict', 2)
      await rejectsWith(s.write({ type: 'update', key: key('a', 'two'), value: configMap('a', 'two'), expectRevision: 1 }), 'NotFound')
      assert.equal(await s.currentRevision(), 2)
    })

    it('deletes with compare-and-swap and returns the last state at the deletion revision', async (t) => {
      const s = await make(t)
      await s.write({ type: 'create', key: key('a', 'one'), value: configMap('a', 'one') })
      await rejectsWith(s.write({ type: 'delete', key: key('a', 'one'), value: configMap('a', 'one'), expectRevision: 5 }), 'Conflict', 1)
      await rejectsWith(s.write({ type: 'delete', key: key('a', 'two'), value: configMap('a', 'two'), expectRevision: 1 }), 'NotFound')
      const deleted = await s.write({ type: 'delete', key: key('a', 'one'), value: configMap('a', 'one', { last: 'yes' }), expectRevision: 1 })
      assert.equal(deleted.revision, 2)
      assert.match(deleted.json, /"resourceVersion":"2"}.*"last":"yes"/)
      assert.equal(await s.get(key('a', 'one')), undefined)
      const log = await s.readLog(PREFIX, 0, 2)
      assert.deepEqual(log.map(e => [e.type, e.revision]), [['ADDED', 1], ['DELETED', 2]])
      assert.equal(log[1].json, deleted.json)
      await s.write({ type: 'create', key: key('a', 'one'), value: configMap('a', 'one') })
    })

    it('lists the newest state in key order at the current revision', async (t) => {
      const s = await make(t)
      for (const n of ['c', 'a', 'b']) await s.write({ type: 'create', key: key('ns', n), value: configMap('ns', n) })
      const page = await s.list({ prefix: PREFIX })
      assert.deepEqual(names(page.items), ['ns/a', 'ns/b', 'ns/c'])
      assert.equal(page.revision, 3)
      assert.equal(page.continueAfterKey, undefined)
      assert.equal(page.remaining, undefined)
      assert.deepEqual(await s.list({ prefix: '/registry/core/secrets/' }), { items: [], revision: 3 })
    })

    it('lists the state at an exact revision, and refuses one newer than current with TooLarge', async (t) => {
      const s = await make(t)
      const a = await s.write({ type: 'create', key: key('ns', 'a'), value: configMap('ns', 'a', { v: '1' }) })
      const b = await s.write({ type: 'create', key: key('ns', 'b'), value: configMap('ns', 'b') })
      await s.write({ type: 'update', key: key('ns', 'a'), value: configMap('ns', 'a', { v: '2' }), expectRevision: a.revision })
      await s.write({ type: 'delete', key: key('ns', 'b'), value: configMap('ns', 'b'), expectRevision: b.revision })
      const at2 = await s.list({ prefix: PREFIX, revision: 2 })
      assert.equal(at2.revision, 2)
      assert.deepEqual(at2.items, [a, b])
      assert.deepEqual(names((await s.list({ prefix: PREFIX, revision: 3 })).items), ['ns/a', 'ns/b'])
      const at4 = await s.list({ prefix: PREFIX, revision: 4 })
      assert.deepEqual(at4.items, (await s.list({ prefix: PREFIX })).items)
      await rejectsWith(s.list({ prefix: PREFIX, revision: 5 }), 'TooLarge')
    })

    it('pages one snapshot by key while writes happen between pages', async (t) => {
      const s = await make(t)
      for (let i = 0; i < 10; i++) await s.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
      const snapshot = (await s.list({ prefix: PREFIX })).items
      const first = await s.list({ prefix: PREFIX, limit: 4, count: true })
      assert.deepEqual(names(first.items), ['ns/o0', 'ns/o1', 'ns/o2', 'ns/o3'])
      assert.equal(first.remaining, 6)
      assert.equal(first.continueAfterKey, key('ns', 'o3'))
      const items = [...first.items]
      let page = first
      let n = 0
      while (page.continueAfterKey !== undefined) {
        // Change the pages still to come: none of this may show.
        await s.write({ type: 'update', key: key('ns', 'o9'), value: configMap('ns', 'o9', { n: String(n) }), expectRevision: (await s.get(key('ns', 'o9')))!.revision })
        await s.write({ type: 'create', key: key('ns', `o5x${n}`), value: configMap('ns', `o5x${n}`) })
        if (n === 0) await s.write({ type: 'delete', key: key('ns', 'o8'), value: configMap('ns', 'o8'), expectRevision: 9 })
        n++
        page = await s.list({ prefix: PREFIX, revision: first.revision, limit: 4, continueAfterKey: page.continueAfterKey, count: n === 2 })
        assert.equal(page.revision, first.revision)
        // The rest is counted only when asked.
        if (n !== 2) assert.equal(page.remaining, undefined)
        items.push(...page.items)
      }
      assert.equal(page.remaining, 0)
      assert.equal(page.continueAfterKey, undefined)
      assert.deepEqual(items, snapshot)
      assert.equal(n, 2)
    })

    it('keeps prefixes apart: a/ does not match ab/', async (t) => {
      const s = await make(t)
      await s.write({ type: 'create', key: key('a', 'x'), value: configMap('a', 'x') })
      await s.write({ type: 'create', key: key('ab', 'y'), value: configMap('ab', 'y') })
      await s.write({ type: 'create', key: key('a', 'z'), value: configMap('a', 'z') })
      await s.write({ type: 'create', key: '/registry/core/configmaps0', value: configMap('', 'weird') })
      assert.deepEqual(names((await s.list({ prefix: `${PREFIX}a/` })).items), ['a/x', 'a/z'])
      assert.deepEqual(names((await s.list({ prefix: `${PREFIX}a/`, revision: 3, limit: 1 })).items), ['a/x'])
      assert.deepEqual(names((await s.list({ prefix: `${PREFIX}ab/` })).items), ['ab/y'])
      assert.deepEqual((await s.readLog(`${PREFIX}a/`, 0, 4)).map(e => e.revision), [1, 3])
      assert.equal((await s.list({ prefix: PREFIX })).items.length, 3)
    })

    it('scans a prefix\'s newest state with its revision, one object at a time, in any order', async (t) => {
      const s = await make(t)
      const scanned = async (prefix: string): Promise<{ revision: number, items: StoredObject[] }> => {
        const items: StoredObject[] = []
        const revision = await s.scan(prefix, (key, revision, json) => { items.push({ key, revision, json }) })
        return { revision, items: items.sort((a, b) => a.key < b.key ? -1 : 1) }
      }
      assert.deepEqual(await scanned(PREFIX), { revision: 0, items: [] })
      for (const n of ['c', 'a', 'b']) await s.write({ type: 'create', key: key('ns', n), value: configMap('ns', n) })
      await s.write({ type: 'create', key: key('nsx', 'd'), value: configMap('nsx', 'd') })
      await s.write({ type: 'create', key: '/registry/core/configmaps0', value: configMap('', 'past the range') })
      const a = (await s.get(key('ns', 'a')))!
      await s.write({ type: 'update', key: key('ns', 'a'), value: configMap('ns', 'a', { v: '2' }), expectRevision: a.revision })
      await s.write({ type: 'delete', key: key('ns', 'c'), value: configMap('ns', 'c'), expectRevision: 1 })
      assert.deepEqual(await scanned(PREFIX), await s.list({ prefix: PREFIX }))
      assert.deepEqual(await scanned(`${PREFIX}ns/`), await s.list({ prefix: `${PREFIX}ns/` }))
      assert.deepEqual(await scanned('/registry/core/secrets/'), { revision: 7, items: [] })
      // A failing consumer fails the scan, and the store goes on answering.
      const boom = new Error('boom')
      let calls = 0
      await assert.rejects(s.scan(PREFIX, () => { calls++; throw boom }), boom)
      assert.equal(calls, 1)
      assert.equal((await scanned(PREFIX)).items.length, 3)
    })

    it('batches 200 concurrent writes, each with its own precondition and result', async (t) => {
      const s = await make(t)
      const base: StoredObject[] = []
      for (let i = 0; i < 50; i++) base.push(await s.write({ type: 'create', key: key('g', `k${i}`), value: configMap('g', `k${i}`) }))
      const start = await s.currentRevision()
      type Want = 'ok' | StorageErrorCode
      const ops: Array<[Promise<StoredObject>, Want]> = []
      for (let i = 0; i < 50; i++) {
        const update = { type: 'update' as const, key: base[i].key, value: configMap('g', `k${i}`, { i: String(i) }), expectRevision: base[i].revision }
        ops.push([s.write(update), 'ok'])
        ops.push([s.write(update), 'Conflict']) // the same expectRevision, now stale
        ops.push([s.write({ type: 'create', key: key('g', `new${i}`), value: configMap('g', `new${i}`) }), 'ok'])
        ops.push([s.write({ type: 'create', key: base[i].key, value: configMap('g', `k${i}`) }), 'KeyExists'])
      }
      const results = await Promise.allSettled(ops.map(([p]) => p))
      const revisions: number[] = []
      results.forEach((r, i) => {
        const want = ops[i][1]
        if (want === 'ok') {
          assert.equal(r.status, 'fulfilled', `op ${i}`)
          if (r.status === 'fulfilled') revisions.push(r.value.revision)
        } else {
          assert.equal(r.status, 'rejected', `op ${i}`)
          if (r.status === 'rejected') assert.equal((r.reason as StorageError).code, want, `op ${i}`)
        }
      })
      // Commit order is issue order here; successes take consecutive revisions, failures none.
      assert.deepEqual(revisions, Array.from({ length: 100 }, (_, i) => start + 1 + i))
      assert.equal(await s.currentRevision(), start + 100)
      const log = await s.readLog(PREFIX, start, start + 100)
      assert.deepEqual(log.map(e => e.revision), revisions)
      const fulfilled = results.flatMap(r => r.status === 'fulfilled' ? [r.value] : [])
      assert.deepEqual(log.map(e => ({ key: e.key, revision: e.revision, json: e.json })), fulfilled)
    })

    it('compacts history: reads below the compacted revision are Compacted, live keys stay readable', async (t) => {
      const s = await make(t)
      const a1 = await s.write({ type: 'create', key: key('ns', 'a'), value: configMap('ns', 'a', { v: '1' }) }) // 1
      await s.write({ type: 'create', key: key('ns', 'b'), value: configMap('ns', 'b') }) // 2
      const a3 = await s.write({ type: 'update', key: key('ns', 'a'), value: configMap('ns', 'a', { v: '3' }), expectRevision: a1.revision }) // 3
      await s.write({ type: 'delete', key: key('ns', 'b'), value: configMap('ns', 'b'), expectRevision: 2 }) // 4
      const c5 = await s.write({ type: 'create', key: key('ns', 'c'), value: configMap('ns', 'c') }) // 5
      assert.equal(await s.compactedRevision(), 0)
      assert.equal(await s.compact(4), 4)
      assert.equal(await s.compactedRevision(), 4)
      assert.equal(await s.compact(2), 4, 'compaction never goes back')

      await rejectsWith(s.list({ prefix: PREFIX, revision: 3 }), 'Compacted', 4)
      await rejectsWith(s.readLog(PREFIX, 3, 5), 'Compacted', 4)
      assert.deepEqual((await s.list({ prefix: PREFIX, revision: 4 })).items, [a3])
      assert.deepEqual((await s.list({ prefix: PREFIX, revision: 5 })).items, [a3, c5])
      assert.deepEqual((await s.readLog(PREFIX, 4, 5)).map(e => [e.type, e.key]), [['ADDED', key('ns', 'c')]])

      // The value a MODIFIED replaced survives compaction.
      const a6 = await s.write({ type: 'update', key: key('ns', 'a'), value: configMap('ns', 'a', { v: '6' }), expectRevision: a3.revision })
      assert.equal(await s.compact(5), 5)
      const [modified] = await s.readLog(PREFIX, 5, 6)
      assert.equal(modified.type, 'MODIFIED')
      assert.equal(modified.json, a6.json)
      assert.equal(modified.prevJson, a3.json)
      assert.deepEqual((await s.list({ prefix: PREFIX, revision: 5 })).items, [a3, c5])
      assert.deepEqual((await s.list({ prefix: PREFIX, revision: 6 })).items, [a6, c5])
    })
  })
}
