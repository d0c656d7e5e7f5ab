// Lease (coordination.svc.io/v1) and the controllers' leader election: two apps on one database.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { CONTROLLER_MANAGER_LEASE, GROUPS, NAMESPACES } from '../../resources/naming.js'
import { checkLeaderElectionTimings } from '../../controllers/leader-election.js'
import { parseFlags } from '../../bin/flags.js'

const LEASES = `/apis/${GROUPS.coordination}/v1/namespaces/${NAMESPACES.system}/leases`
const LEASE = `${LEASES}/${CONTROLLER_MANAGER_LEASE}`
/** Short timings that keep upstream's proportions (duration > deadline > 1.2 × retry). */
const FAST = { leaseDurationMs: 2000, renewDeadlineMs: 1200, retryPeriodMs: 250 }

test('Lease: validation, dropped coordinated fields, Holder column', async (t) => {
  const { request } = await buildTestApp(t, { leaderElection: { enabled: false } })
  const path = `/apis/${GROUPS.coordination}/v1/namespaces/default/leases`
  const bad = await request({ method: 'POST', url: path, payload: { metadata: { name: 'x' }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } } })
  assert.equal(bad.statusCode, 422)
  const status = bad.json()
  assert.equal(status.reason, 'Invalid')
  assert.deepEqual(status.details.causes.map((c: { field: string }) => c.field).sort(), ['spec.leaseDurationSeconds', 'spec.leaseTransitions'])
  assert.match(status.message, /spec\.leaseDurationSeconds: Invalid value: 0: must be greater than 0/)

  const created = await request({ method: 'POST', url: path, payload: { metadata: { name: 'node-1' }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.123456Z', strategy: 'OldestEmulationVersion', preferredHolder: 'x' } } })
  assert.equal(created.statusCode, 201, created.body)
  assert.equal(created.json().spec.strategy, undefined)
  assert.equal(created.json().spec.preferredHolder, undefined)
  assert.equal(created.json().spec.renewTime, '2026-01-01T00:00:00.123456Z')
  assert.equal(created.json().metadata.generation, undefined)

  const table = await request({ method: 'GET', url: path, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })
  assert.equal(table.statusCode, 200)
  assert.deepEqual(table.json().columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Holder', 'Age'])
  assert.deepEqual(table.json().rows[0].cells.slice(0, 2), ['node-1', 'node-1'])
})

async function lease (app: TestApp): Promise<any> {
  const res = await app.request({ method: 'GET', url: LEASE })
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

test('two apps on one database: one leader runs the controllers, the other takes over when it closes', async (t) => {
  const a = await buildTestApp(t, { leaderElection: { ...FAST, identity: 'replica-a' } })
  const b = await buildTestApp(t, { databaseUrl: a.databaseUrl, leaderElection: { ...FAST, identity: 'replica-b' } })
  // The first app took the lease while starting; the second waits for it.
  assert.equal(a.app.leadership.isLeader(), true)
  assert.equal(b.app.leadership.isLeader(), false)
  const first = await lease(a)
  assert.equal(first.spec.holderIdentity, 'replica-a')
  assert.equal(first.spec.leaseDurationSeconds, 2)
  assert.equal(first.spec.leaseTransitions, 0)
  assert.match(first.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)

  // The leader renews: renewTime moves, the holder stays, and the other app never leads meanwhile.
  await eventually(async () => assert.notEqual((await lease(b)).spec.renewTime, first.spec.renewTime))
  assert.equal((await lease(b)).spec.holderIdentity, 'replica-a')
  assert.equal(b.app.leadership.isLeader(), false)

  // A namespace created through the non-leader gets its default account from the leader.
  assert.equal((await b.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'team' } } })).statusCode, 201)
  await eventually(async () => assert.equal((await b.request({ method: 'GET', url: '/api/v1/namespaces/team/serviceaccounts/default' })).statusCode, 200))

  // Closing the leader releases the lease: the other takes it at its next retry.
  await a.app.close()
  await eventually(() => assert.equal(b.app.leadership.isLeader(), true))
  const taken = await lease(b)
  assert.equal(taken.spec.holderIdentity, 'replica-b')
  assert.equal(taken.spec.leaseTransitions, 1)
  assert.equal(taken.spec.leaseDurationSeconds, 2)
  assert.equal((await b.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'after' } } })).statusCode, 201)
  await eventually(async () => assert.equal((await b.request({ method: 'GET', url: '/api/v1/namespaces/after/serviceaccounts/default' })).statusCode, 200))
})

test('a leader that cannot renew stops its controllers; a lease held by a live holder is never taken', async (t) => {
  const a = await buildTestApp(t, { leaderElection: { ...FAST, identity: 'replica-a' } })
  assert.equal(a.app.leadership.isLeader(), true)
  // Someone else holds the lease now and keeps renewing it (as another replica would).
  let stop = false
  const renewOther = async (): Promise<void> => {
    while (!stop) {
      const current = await lease(a)
      const res = await a.request({
        method: 'PUT',
        url: LEASE,
        payload: { ...current, spec: { ...current.spec, holderIdentity: 'replica-x', renewTime: new Date().toISOString().replace('Z', '000Z') } }
      })
      assert.ok([200, 409].includes(res.statusCode), res.body)
      await new Promise(resolve => setTimeout(resolve, 100))
    }
  }
  const other = renewOther()
  t.after(async () => { stop = true; await other })
  await eventually(() => assert.equal(a.app.leadership.isLeader(), false))
  assert.equal((await lease(a)).spec.holderIdentity, 'replica-x')
  stop = true
  await other
  // Once the other holder stops renewing, the lease expires and this app takes it back.
  await eventually(() => assert.equal(a.app.leadership.isLeader(), true))
  assert.equal((await lease(a)).spec.holderIdentity, 'replica-a')
})

test('--leader-elect=false: the controllers run without a lease', async (t) => {
  const a = await buildTestApp(t, { leaderElection: { enabled: false } })
  assert.equal(a.app.leadership.isLeader(), true)
  assert.equal((await a.request({ method: 'GET', url: LEASE })).statusCode, 404)
  assert.equal((await a.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'solo' } } })).statusCode, 201)
  await eventually(async () => assert.equal((await a.request({ method: 'GET', url: '/api/v1/namespaces/solo/serviceaccounts/default' })).statusCode, 200))
})

test('leader election timings and flags as upstream names and checks them', () => {
  const flags = parseFlags(['--leader-elect=false', '--leader-elect-lease-duration', '30s', '--leader-elect-renew-deadline', '20s', '--leader-elect-retry-period', '4s',
    '--leader-elect-resource-namespace', 'ops', '--leader-elect-resource-name', 'cm', '--shutdown-watch-termination-grace-period', '5s'], {})
  assert.equal(flags.leaderElect, false)
  assert.deepEqual([flags.leaderElectLeaseDurationMs, flags.leaderElectRenewDeadlineMs, flags.leaderElectRetryPeriodMs], [30_000, 20_000, 4_000])
  assert.deepEqual([flags.leaderElectResourceNamespace, flags.leaderElectResourceName, flags.shutdownWatchTerminationGracePeriodMs], ['ops', 'cm', 5000])
  assert.equal(parseFlags(['--leader-elect'], {}).leaderElect, true)
  assert.equal(parseFlags([], {}).leaderElect, true)
  assert.throws(() => checkLeaderElectionTimings({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 }), /leaseDuration must be greater than renewDeadline/)
  assert.throws(() => checkLeaderElectionTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 2000, retryPeriodMs: 2000 }), /renewDeadline must be greater than retryPeriod\*JitterFactor/)
})
