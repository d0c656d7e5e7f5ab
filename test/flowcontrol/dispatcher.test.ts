// The seats and queues without a server: lending between levels, exempt levels, queue length
// limits, fair turns between flows, waits that run out, waiters that leave.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { digestConfig } from '../../plugins/flowcontrol/classify.js'
import { Dispatcher, type DispatchObserver, type Grant, type Rejection, type Waiting } from '../../plugins/flowcontrol/dispatcher.js'
import type { AnyObject } from '../../resources/define.js'
import { eventually } from '../helpers/eventually.js'

const quiet: DispatchObserver = { enqueued () {}, dequeued () {}, dispatched () {}, finished () {}, rejected () {}, changed () {}, unaccommodated () {}, configured () {} }

const level = (name: string, shares: number, lendablePercent: number, limitResponse: AnyObject, borrowingLimitPercent?: number): AnyObject => ({
  metadata: { name, uid: name },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, ...(borrowingLimitPercent === undefined ? {} : { borrowingLimitPercent }), limitResponse } }
})
const queue = (queues: number, handSize: number, queueLengthLimit: number): AnyObject => ({ type: 'Queue', queuing: { queues, handSize, queueLengthLimit } })
const REJECT = { type: 'Reject' }

function dispatcherOf (serverLimit: number, levels: AnyObject[]): Dispatcher {
  const d = new Dispatcher(serverLimit, quiet)
  // The mandatory levels are imagined; catch-all's 5 shares are counted too.
  d.configure(digestConfig([], levels))
  return d
}

const isGrant = (r: Grant | Rejection | Waiting): r is Grant => 'release' in r
const grant = (r: Grant | Rejection | Waiting): Grant => { assert.ok(isGrant(r), JSON.stringify(r)); return r }

test('a level uses its own seats, then borrows what others lend, never past its upper bound', () => {
  // Shares 5 (catch-all) + 10 + 5 = 20 of 20 seats: busy 10, lender 5 (all lendable), catch-all 5.
  const d = dispatcherOf(20, [level('busy', 10, 0, REJECT, 30), level('lender', 5, 100, REJECT)])
  assert.deepEqual(d.levels.get('busy')!.limits, { nominal: 10, lendable: 0, guaranteed: 10, upper: 13 })
  const held = Array.from({ length: 10 }, () => grant(d.admit('busy', 's', 'f', 1, 1000)))
  // Three more from lender's pool (the borrowing limit is 30% of 10).
  const borrowed = Array.from({ length: 3 }, () => grant(d.admit('busy', 's', 'f', 1, 1000)))
  assert.deepEqual(d.admit('busy', 's', 'f', 1, 1000), { rejected: 'concurrency-limit' }, 'past the upper bound')
  // The lender's two remaining seats are still its own to use; its guaranteed share is zero.
  grant(d.admit('lender', 's', 'f', 1, 1000))
  grant(d.admit('lender', 's', 'f', 1, 1000))
  assert.deepEqual(d.admit('lender', 's', 'f', 1, 1000), { rejected: 'concurrency-limit' }, 'the pool is used up')
  borrowed[0]!.release()
  grant(d.admit('lender', 's', 'f', 1, 1000))
  for (const g of held) g.release()
})

test('exempt levels never wait and hold none of the limit\'s seats', () => {
  const d = dispatcherOf(1, [level('only', 1, 0, REJECT, 0)])
  const exempt = Array.from({ length: 50 }, () => grant(d.admit('exempt', 'exempt', '', 1, 0)))
  grant(d.admit('only', 's', 'f', 1, 1000))
  for (const g of exempt) g.release()
})

test('a Queue level queues up to its queue length limit and serves its queues in fair turns', async () => {
  const d = dispatcherOf(1, [level('q', 100, 0, queue(2, 1, 3), 0)])
  // One seat for the level: ceil(1 × 100 / 105).
  const running = grant(d.admit('q', 's', 'heavy', 1, 60_000))
  // Find two flows dealt to different queues (one queue each: hand size 1).
  const state = d.levels.get('q')!
  const heavy = 'heavy'
  let light = 'light-0'
  for (let i = 1; state.hand(light)[0] === state.hand(heavy)[0]; i++) light = `light-${i}`
  const order: string[] = []
  const wait = (flow: string): Waiting => {
    const r = d.admit('q', 's', flow, 1, 60_000)
    assert.ok('outcome' in r, 'queued')
    void r.outcome.then(g => { if ('release' in g) { order.push(flow); setImmediate(() => g.release()) } })
    return r
  }
  wait(heavy); wait(heavy); wait(heavy)
  assert.deepEqual(d.admit('q', 's', heavy, 1, 60_000), { rejected: 'queue-full' }, 'three wait in the heavy flow\'s queue already')
  wait(light)
  running.release()
  await eventually(() => { assert.equal(order.length, 4) })
  assert.ok(order.indexOf(light) <= 1, `the light flow does not wait behind the whole heavy queue: ${order.join(', ')}`)
})

test('a wait that runs out is a time-out; a waiter that leaves is cancelled; both free their place', async () => {
  const rejected: string[] = []
  const d = new Dispatcher(1, { ...quiet, rejected: (_l, _s, reason) => { rejected.push(reason) } })
  d.configure(digestConfig([], [level('q', 100, 0, queue(1, 1, 1), 0)]))
  const running = grant(d.admit('q', 's', 'f', 1, 0))
  const first = d.admit('q', 's', 'f', 1, 1)
  assert.ok('outcome' in first)
  assert.deepEqual(await first.outcome, { rejected: 'time-out' })
  const second = d.admit('q', 's', 'f', 1, 60_000)
  assert.ok('outcome' in second)
  second.cancel()
  assert.deepEqual(await second.outcome, { rejected: 'cancelled' })
  assert.equal(d.levels.get('q')!.waiting, 0)
  assert.deepEqual(rejected, ['time-out', 'cancelled'])
  running.release()
  grant(d.admit('q', 's', 'f', 1, 0)).release()
})

test('a wide request waits for enough seats; its width is bounded by what the level could hold', async () => {
  const d = dispatcherOf(10, [level('wide', 100, 0, queue(4, 2, 10), 0)])
  const limit = d.levels.get('wide')!.limits.upper
  assert.equal(d.seatsFor('wide', 1000), limit)
  const one = grant(d.admit('wide', 's', 'a', 1, 60_000))
  const all = d.admit('wide', 's', 'b', limit, 60_000)
  assert.ok('outcome' in all, 'waits: one seat is taken')
  one.release()
  const g = await all.outcome
  assert.ok('release' in g)
  assert.equal(d.levels.get('wide')!.inUseSeats, limit)
  g.release()
})

test('waiters of a level that stops queueing are rejected, not forgotten', async () => {
  const d = dispatcherOf(1, [level('q', 100, 0, queue(2, 1, 5), 0)])
  const running = grant(d.admit('q', 's', 'f', 1, 60_000))
  const waiting = d.admit('q', 's', 'f', 1, 60_000)
  assert.ok('outcome' in waiting)
  d.configure(digestConfig([], [level('q', 100, 0, REJECT, 0)]))
  assert.deepEqual(await waiting.outcome, { rejected: 'concurrency-limit' })
  assert.equal(d.levels.get('q')!.waiting, 0)
  running.release()
})

test('a write with watchers keeps its seats a little after it is answered, then gives them back', async () => {
  const d = dispatcherOf(3, [level('only', 1, 0, queue(1, 1, 10), 0)])
  const seats = d.levels.get('only')!.limits.nominal
  const write = grant(d.admit('only', 's', 'f', seats, 1000, { seats, ms: 30 }))
  write.release()
  assert.equal(d.levels.get('only')!.inUseSeats, seats, 'held after the answer, for the events it causes')
  const next = d.admit('only', 's', 'f', 1, 1000)
  assert.ok('outcome' in next, 'the next request waits')
  const got = await next.outcome
  assert.ok(isGrant(got))
  assert.equal(d.levels.get('only')!.inUseSeats, 1)
  got.release()
  await eventually(() => { assert.equal(d.levels.get('only')!.inUseSeats, 0) })
})
