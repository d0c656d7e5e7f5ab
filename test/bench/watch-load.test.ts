// The benchmark's watch workload against a real server: with the watchers and the writes spread
// over namespaces, each write is counted as owed only to the watchers of its own namespace.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startTestServer } from '../helpers/tls-app.js'
import { runJson } from '../../bench/process.js'
import type { Target, WatchJob, WatchResult } from '../../bench/load.js'

test('watch workload: watchers and writes spread over namespaces, every owed event delivered once', async (t) => {
  const server = await startTestServer(t)
  const target: Target = { origin: server.url, ...server.admin }
  const namespaces = ['spread-a', 'spread-b', 'spread-c']
  for (const name of namespaces) {
    const res = await server.request({ method: 'POST', url: '/api/v1/namespaces', payload: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })
    assert.equal(res.statusCode, 201, res.body)
  }
  // Seven watchers over three namespaces: three on the first, two on each of the others.
  const job: WatchJob = { mode: 'watch', target, namespaces, watchers: 7, writesPerSecond: 30, durationMs: 1000, payloadBytes: 64, drainMs: 5000 }
  const r = await runJson<WatchResult>('bench/load.ts', job)
  assert.equal(r.connected, 7)
  assert.equal(r.writes, 30)
  assert.equal(r.writeFailures, 0)
  // Writes go round the namespaces: ten each, owed to 3, 2 and 2 watchers.
  assert.equal(r.expectedDeliveries, 10 * 3 + 10 * 2 + 10 * 2)
  assert.equal(r.delivered, r.expectedDeliveries)
  assert.equal(r.lost, 0)
  assert.equal(r.latency.count, r.delivered)
})
