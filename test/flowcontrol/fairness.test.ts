// Fairness under a flood, over loopback HTTP: bob floods with many concurrent lists and creates
// (bounded in count) in a priority level of a few seats and short queues, while alice, in a
// FlowSchema and level of her own, gets one object at a steady trickle. None of alice's requests
// fails; bob meets 429s carrying Retry-After; the admin and the probes keep working. No timing
// is asserted (the ratio of latencies is the bench's `fairness` workload).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Pool } from 'undici'
import { buildTestApp, USERS } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { queuedLevel, userFlowSchema } from '../../bench/fairness.js'

const FC = '/apis/flowcontrol.apiserver.svc.io/v1'
const NS = '/api/v1/namespaces/default/configmaps'

test('a flooding user is shed with 429s while another user\'s trickle all succeeds', async (t) => {
  // 60 seats: bob's level gets 2 of them, alice's 10.
  const testApp = await buildTestApp(t, { flowControl: { maxRequestsInflight: 40, maxMutatingRequestsInflight: 20 } })
  const { app, request } = testApp
  for (const [plural, body] of [
    ['prioritylevelconfigurations', queuedLevel('flood', 10, 2, 2)],
    ['prioritylevelconfigurations', queuedLevel('trickle', 50, 2, 50)],
    ['flowschemas', userFlowSchema('flood', 'bob', 'flood')],
    ['flowschemas', userFlowSchema('trickle', 'alice', 'trickle')]
  ] as const) assert.equal((await request({ method: 'POST', url: `${FC}/${plural}`, payload: body })).statusCode, 201)
  await eventually(() => {
    const fc = app.flowControl
    assert.ok('config' in fc && fc.config().schemas.some(s => s.name === 'trickle'))
  })
  assert.equal((await request({ method: 'POST', url: NS, payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' } } })).statusCode, 201)
  for (let i = 0; i < 200; i++) {
    assert.equal((await request({ method: 'POST', url: NS, payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `item-${i}` }, data: { v: 'x'.repeat(512) } } })).statusCode, 201)
  }

  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  assert.ok(address !== null && typeof address === 'object')
  const pool = new Pool(`http://127.0.0.1:${address.port}`, { connections: 64 })
  t.after(() => pool.close())
  const call = async (as: keyof typeof USERS, method: 'GET' | 'POST', path: string, body?: object): Promise<{ status: number, retryAfter?: string }> => {
    const res = await pool.request({
      method,
      path,
      headers: { authorization: `Bearer ${USERS[as].token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    await res.body.dump({ limit: Infinity })
    const retryAfter = res.headers['retry-after']
    return { status: res.statusCode, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined }
  }

  // bob: 48 clients, 20 requests each, lists and creates alternating.
  const floodStatuses: Record<number, number> = {}
  let missingRetryAfter = 0
  let created = 0
  const flooder = async (n: number): Promise<void> => {
    for (let i = 0; i < 20; i++) {
      const r = i % 2 === 0
        ? await call('bob', 'GET', NS)
        : await call('bob', 'POST', NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `flood-${n}-${created++}` } })
      floodStatuses[r.status] = (floodStatuses[r.status] ?? 0) + 1
      if (r.status === 429 && r.retryAfter !== '1') missingRetryAfter++
    }
  }
  let flooding = true
  const flood = Promise.all(Array.from({ length: 48 }, (_, n) => flooder(n))).finally(() => { flooding = false })
  // alice: one get after another while the flood lasts (at least 20).
  const trickle: number[] = []
  while (flooding || trickle.length < 20) trickle.push((await call('alice', 'GET', `${NS}/target`)).status)
  await flood
  // The admin and the probes were never in bob's way either.
  assert.equal((await call('admin', 'GET', NS)).status, 200)
  assert.equal((await call('bob', 'GET', '/readyz')).status, 200)

  assert.deepEqual(trickle.filter(s => s !== 200), [], `every one of alice's ${trickle.length} gets succeeds`)
  assert.ok((floodStatuses[429] ?? 0) > 0, `bob is shed: ${JSON.stringify(floodStatuses)}`)
  assert.equal(missingRetryAfter, 0, 'every 429 says when to retry')
  assert.deepEqual(Object.keys(floodStatuses).filter(s => s !== '200' && s !== '201' && s !== '429'), [], JSON.stringify(floodStatuses))
})
