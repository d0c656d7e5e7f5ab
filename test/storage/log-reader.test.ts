// The log reader with a scripted log: a process's own commits offered to it are delivered
// without reading them back, each event once and in order however offers, notifications and
// log reads interleave.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { LogReader, type LogSource } from '../../storage/log-reader.js'
import type { LogEvent } from '../../storage/interface.js'

const event = (revision: number): LogEvent => ({ type: 'ADDED', key: `/k/${revision}`, revision, json: `{"rv":${revision}}` })
const events = (from: number, to: number): LogEvent[] => Array.from({ length: to - from + 1 }, (_, i) => event(from + i))
const tick = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

/** A log of `committed` events; reads can be held open to race them with offers. */
function scriptedLog () {
  const log = {
    committed: 0,
    reads: 0,
    notify: undefined as ((revision?: number) => void) | undefined,
    gate: undefined as Promise<void> | undefined,
    source: undefined as unknown as LogSource
  }
  log.source = {
    async readAfter (after, until, limit) {
      log.reads++
      const upTo = Math.min(log.committed, until ?? Infinity, after + limit)
      await log.gate
      return { events: after < upTo ? events(after + 1, upTo) : [], compacted: 0 }
    },
    async listen (onNotify) {
      log.notify = onNotify
      return { async close () {} }
    }
  }
  return log
}

function reader (t: { after (fn: () => unknown): void }, log: ReturnType<typeof scriptedLog>) {
  const r = new LogReader(log.source, { pollIntervalMs: 60_000, batchSize: 1000 })
  t.after(() => r.close())
  const got: number[] = []
  t.after(r.subscribe(0, (evs) => { for (const e of evs) got.push(e.revision) }))
  return { r, got }
}

const range = (from: number, to: number): number[] => events(from, to).map(e => e.revision)

describe('log reader offers', () => {
  it('delivers an offer that continues the log at once, and a notification of it reads nothing', async (t) => {
    const log = scriptedLog()
    const { r, got } = reader(t, log)
    await tick()
    const readsBefore = log.reads
    log.committed = 3
    r.offer(events(1, 3))
    assert.deepEqual(got, [1, 2, 3], 'delivered before any read')
    log.notify!(3)
    await tick()
    assert.equal(log.reads, readsBefore, 'the notification of a delivered revision read nothing')
    // Someone else's commit: the notification reads the log.
    log.committed = 4
    log.notify!(4)
    await tick()
    assert.deepEqual(got, [1, 2, 3, 4])
    assert.equal(log.reads, readsBefore + 1)
  })

  it('a notification that comes before its own batch answers waits for the offer and reads nothing', async (t) => {
    const log = scriptedLog()
    const { r, got } = reader(t, log)
    await tick()
    const readsBefore = log.reads
    // Two batches in flight; each one's notification arrives before its answer.
    const first = r.expectOffer()
    const second = r.expectOffer()
    log.committed = 3
    log.notify!(3)
    await tick()
    r.offer(events(1, 3))
    first()
    log.committed = 5
    log.notify!(5)
    await tick()
    r.offer(events(4, 5))
    second()
    await tick()
    assert.deepEqual(got, range(1, 5))
    assert.equal(log.reads, readsBefore, 'the own commits were not read back')
    // Another writer's commit while a batch of ours is in flight: read once that batch answers.
    const third = r.expectOffer()
    log.committed = 6
    log.notify!(6)
    await tick()
    assert.deepEqual(got, range(1, 5), 'waiting for the batch in flight')
    third()
    await tick()
    assert.deepEqual(got, range(1, 6))
    assert.equal(log.reads, readsBefore + 1)
    // A batch that never answers holds another writer's commit back only a few milliseconds.
    const stuck = r.expectOffer()
    log.committed = 7
    log.notify!(7)
    await new Promise(resolve => setTimeout(resolve, 50))
    assert.deepEqual(got, range(1, 7))
    stuck()
    stuck()
  })

  it('holds an offer until the commits before it arrive, by offer or by log read', async (t) => {
    const log = scriptedLog()
    const { r, got } = reader(t, log)
    await tick()
    log.committed = 6
    r.offer(events(4, 6))
    assert.deepEqual(got, [], 'revisions 1 to 3 are not delivered yet')
    r.offer(events(1, 3))
    assert.deepEqual(got, range(1, 6))
    // Another writer's commits 7 and 8 come from the log; the held offer 9-10 follows them.
    log.committed = 10
    r.offer(events(9, 10))
    assert.deepEqual(got, range(1, 6))
    log.notify!(8)
    await tick()
    await tick()
    assert.deepEqual(got, range(1, 10))
  })

  it('delivers each event once when a log read in flight returns what an offer delivered', async (t) => {
    const log = scriptedLog()
    const { r, got } = reader(t, log)
    await tick()
    let open!: () => void
    log.gate = new Promise(resolve => { open = resolve })
    log.committed = 5
    log.notify!(5)
    await tick()
    // The read of 1..5 is in flight; this process's commits 1..3 and 6..7 are offered meanwhile.
    r.offer(events(1, 3))
    log.committed = 7
    r.offer(events(6, 7))
    assert.deepEqual(got, [1, 2, 3])
    open()
    log.gate = undefined
    await tick()
    await tick()
    assert.deepEqual(got, range(1, 7), 'the read filled 4..5, then the held offer followed')
  })

  it('ignores offers that do not hold consecutive revisions, and offers with no subscriber', async (t) => {
    const log = scriptedLog()
    const lonely = new LogReader(log.source, { pollIntervalMs: 60_000, batchSize: 1000 })
    t.after(() => lonely.close())
    lonely.offer(events(1, 2))
    const { r, got } = reader(t, log)
    await tick()
    r.offer([event(1), event(3)])
    assert.deepEqual(got, [])
    log.committed = 3
    log.notify!()
    await tick()
    assert.deepEqual(got, [1, 2, 3])
  })
})

describe('log reader listener', () => {
  it('survives a listener lost before its listen() resolved, and listens again', async (t) => {
    const log = scriptedLog()
    let listens = 0
    const closed: number[] = []
    const source: LogSource = {
      readAfter: log.source.readAfter,
      async listen (onNotify, onLost) {
        const n = ++listens
        // As pg does when the connection ends during the LISTEN: the loss comes first.
        if (n === 1) onLost(new Error('listener connection ended'))
        log.notify = onNotify
        return { async close () { closed.push(n) } }
      }
    }
    const r = new LogReader(source, { pollIntervalMs: 60_000, batchSize: 1000 })
    t.after(() => r.close())
    const got: number[] = []
    t.after(r.subscribe(0, (evs) => { for (const e of evs) got.push(e.revision) }))
    await tick()
    await tick()
    assert.equal(listens, 2, 'listened again')
    assert.deepEqual(closed, [1], 'the lost listener was closed, the new one kept')
    log.committed = 2
    log.notify!(2)
    await tick()
    assert.deepEqual(got, [1, 2])
  })
})
