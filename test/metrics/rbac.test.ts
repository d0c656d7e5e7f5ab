// The default roles let system:monitoring read /metrics, as the reference server's do; others
// get the reference server's 403.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'

test('system:monitoring may read /metrics under RBAC; other users may not', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'metrics-tokens-'))
  const tokenAuthFile = join(dir, 'tokens.csv')
  writeFileSync(tokenAuthFile, 'prom-token,prometheus,uid-prom,"system:monitoring"\nbob-token,bob,uid-bob\n')
  const { app } = await buildTestApp(t, { tokenAuthFile, authorizationModes: ['Node', 'RBAC'] })
  const get = (token: string) => app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })
  const res = await eventually(async () => {
    const r = await get('prom-token')
    assert.equal(r.statusCode, 200, r.body)
    return r
  })
  assert.match(res.body, /^# TYPE apiserver_request_total counter$/m)
  const denied = await get('bob-token')
  assert.equal(denied.statusCode, 403)
  assert.equal(denied.json().reason, 'Forbidden')
  assert.match(denied.json().message, /"bob" cannot get path "\/metrics"/)
})
