// The lease endpoint reconciler without a server: replicas' address leases in one store, each
// replica with its own clock (set by the test, never waited on), and the addresses it would
// write as the `kubernetes` Service's endpoints.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { EndpointLeases, ENDPOINT_LEASES_PREFIX } from '../../storage/endpoint-leases.js'
import { LeaseEndpointReconciler } from '../../controllers/endpoint-reconciler.js'
import { testDatabase } from '../storage/fixtures.js'
import type { Storage } from '../../storage/interface.js'

const TTL = 15_000

/** One replica: its leases on the shared store, its clock, and what it wrote last. */
function replica (storage: Storage) {
  const clock = { now: 0 }
  const written: string[][] = []
  const leases = new EndpointLeases(storage, { leaseDurationMs: TTL, now: () => clock.now })
  const reconciler = new LeaseEndpointReconciler(leases, async (addresses) => { written.push(addresses) })
  return { clock, leases, reconciler, last: () => written.at(-1), writes: () => written.length }
}

const recorded = async (storage: Storage): Promise<string[]> =>
  (await storage.list({ prefix: ENDPOINT_LEASES_PREFIX })).items.map(i => i.key.slice(ENDPOINT_LEASES_PREFIX.length))

test('every live replica\'s address is written, sorted; one that stops cleanly goes at once', async (t) => {
  const storage = await (await testDatabase(t)).open()
  const a = replica(storage)
  const b = replica(storage)
  const c = replica(storage)
  await a.reconciler.reconcile('192.0.2.9')
  assert.deepEqual(a.last(), ['192.0.2.9'])
  await b.reconciler.reconcile('192.0.2.10')
  assert.deepEqual(b.last(), ['192.0.2.10', '192.0.2.9'], 'the addresses in string order, as the reference\'s keys list')
  await c.reconciler.reconcile('10.0.0.1')
  await a.reconciler.reconcile('192.0.2.9')
  assert.deepEqual(a.last(), ['10.0.0.1', '192.0.2.10', '192.0.2.9'])

  await b.reconciler.remove('192.0.2.10')
  assert.deepEqual(b.last(), ['10.0.0.1', '192.0.2.9'], 'the stopping replica writes the rest itself')
  assert.deepEqual(await recorded(storage), ['10.0.0.1', '192.0.2.9'])
  const writes = b.writes()
  await b.reconciler.reconcile('192.0.2.10')
  assert.equal(b.writes(), writes, 'a stopped reconciler renews and writes nothing')
  assert.deepEqual(await recorded(storage), ['10.0.0.1', '192.0.2.9'])
})

test('an address whose lease is not renewed for its duration is dropped at the next reconcile', async (t) => {
  const storage = await (await testDatabase(t)).open()
  const a = replica(storage)
  const b = replica(storage)
  await b.reconciler.reconcile('192.0.2.2')
  await a.reconciler.reconcile('192.0.2.1')
  assert.deepEqual(a.last(), ['192.0.2.1', '192.0.2.2'])

  // B renews within the duration (as A sees time): kept.
  a.clock.now += TTL - 1
  await b.reconciler.reconcile('192.0.2.2')
  await a.reconciler.reconcile('192.0.2.1')
  assert.deepEqual(a.last(), ['192.0.2.1', '192.0.2.2'])

  // B dies: A counts the duration from when it saw B's last renewal.
  a.clock.now += TTL - 1
  await a.reconciler.reconcile('192.0.2.1')
  assert.deepEqual(a.last(), ['192.0.2.1', '192.0.2.2'], 'not yet a whole duration unchanged')
  a.clock.now += 1
  await a.reconciler.reconcile('192.0.2.1')
  assert.deepEqual(a.last(), ['192.0.2.1'])
  assert.deepEqual(await recorded(storage), ['192.0.2.1'], 'the expired record is deleted')

  // B's clock is its own: it comes back and is named again.
  await b.reconciler.reconcile('192.0.2.2')
  assert.deepEqual(b.last(), ['192.0.2.1', '192.0.2.2'])
})

test('a replica that first meets a record gives it a whole duration, whatever its age', async (t) => {
  const storage = await (await testDatabase(t)).open()
  const gone = replica(storage)
  await gone.leases.renew('192.0.2.50')
  const late = replica(storage)
  late.clock.now = 1_000_000
  await late.reconciler.reconcile('192.0.2.1')
  assert.deepEqual(late.last(), ['192.0.2.1', '192.0.2.50'])
  late.clock.now += TTL
  await late.reconciler.reconcile('192.0.2.1')
  assert.deepEqual(late.last(), ['192.0.2.1'])
})

test('with no live lease listed, the endpoints are left as they are', async () => {
  const written: string[][] = []
  const empty = { renew: async () => {}, remove: async () => {}, live: async () => [] } as unknown as EndpointLeases
  const reconciler = new LeaseEndpointReconciler(empty, async (addresses) => { written.push(addresses) })
  await assert.rejects(reconciler.reconcile('192.0.2.1'), /refusing to erase all endpoints for the kubernetes service/)
  await reconciler.remove('192.0.2.1')
  assert.deepEqual(written, [], 'the last replica to stop leaves its address named')
})

test('a removal waits for a reconcile under way; no reconcile starts after it', async () => {
  const order: string[] = []
  let release!: () => void
  const held = new Promise<void>(resolve => { release = resolve })
  const leases = {
    renew: async () => { order.push('renew'); await held },
    remove: async () => { order.push('remove') },
    live: async () => ['192.0.2.1']
  } as unknown as EndpointLeases
  const reconciler = new LeaseEndpointReconciler(leases, async () => { order.push('write') })
  const first = reconciler.reconcile('192.0.2.1')
  await new Promise(resolve => setImmediate(resolve))
  assert.deepEqual(order, ['renew'], 'under way')
  const removal = reconciler.remove('192.0.2.1')
  const after = reconciler.reconcile('192.0.2.1')
  release()
  await Promise.all([first, removal, after])
  assert.deepEqual(order, ['renew', 'write', 'remove', 'write'])
})
