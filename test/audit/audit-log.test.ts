// The audit log end to end: who created, changed and deleted an object, at the policy's levels
// and stages, with the Audit-Id header, impersonation, and no Secret value or token in it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp, USERS } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { parsePolicy } from '../../plugins/audit/policy.js'
import { createAuditLogWriter } from '../../plugins/audit/log-writer.js'
import { GROUPS } from '../../resources/naming.js'

const CM = '/api/v1/namespaces/default/configmaps'
const SECRET_VALUE = 'hunter2-is-not-a-password'

const POLICY = parsePolicy({
  apiVersion: `${GROUPS.audit}/v1`,
  kind: 'Policy',
  omitManagedFields: true,
  rules: [
    { level: 'None', nonResourceURLs: ['/healthz*', '/version'] },
    { level: 'Metadata', resources: [{ group: '', resources: ['configmaps'] }], verbs: ['get', 'list', 'watch'], omitStages: ['RequestReceived'] },
    // Asks for everything about Secrets and token reviews: their bodies stay out regardless.
    { level: 'RequestResponse', resources: [{ group: '', resources: ['secrets'] }, { group: GROUPS.authentication }] },
    { level: 'RequestResponse', resources: [{ group: '', resources: ['configmaps'] }] },
    { level: 'Metadata' }
  ]
})

type Event = Record<string, any>

test('the audit log records who created, changed and deleted an object', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-log-'))
  const path = join(dir, 'audit.log')
  // The server log at its most verbose, request lines included: no credential may reach it either.
  const serverLog: string[] = []
  const sink = { write: (line: string) => { serverLog.push(line) } }
  const { app, request } = await buildTestApp(t, { audit: { policy: POLICY, path }, logger: { level: 'trace', stream: sink }, logRequests: true })
  const events = (): Event[] => existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Event) : []

  const created = await request({ method: 'POST', url: CM, as: 'alice', payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'audited' }, data: { k: 'v1' } } })
  assert.equal(created.statusCode, 201)
  const auditId = created.headers['audit-id'] as string
  assert.match(auditId, /^[0-9a-f-]{36}$/)
  assert.equal((await request({ method: 'PATCH', url: `${CM}/audited`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ data: { k: 'v2' } }) })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: `${CM}/audited`, as: 'bob' })).statusCode, 200)
  assert.equal((await request({ method: 'DELETE', url: `${CM}/audited`, headers: { 'impersonate-user': 'bob' } })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: `${CM}/missing` })).statusCode, 404)
  assert.equal((await request({ method: 'GET', url: '/healthz' })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: '/api/v1/namespaces', headers: { authorization: 'Bearer wrong' }, as: null })).statusCode, 401)
  const secret = await request({ method: 'POST', url: '/api/v1/namespaces/default/secrets', payload: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { password: SECRET_VALUE } } })
  assert.equal(secret.statusCode, 201)
  assert.equal((await request({ method: 'GET', url: '/api/v1/namespaces/default/secrets' })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: `${CM}?watch=true&timeoutSeconds=1` })).statusCode, 200)
  const review = await request({ method: 'POST', url: `/apis/${GROUPS.authentication}/v1/tokenreviews`, payload: { apiVersion: `${GROUPS.authentication}/v1`, kind: 'TokenReview', spec: { token: USERS.bob.token } } })
  assert.equal(review.statusCode, 201)
  assert.equal((await request({ method: 'POST', url: '/api/v1/namespaces/default/serviceaccounts', payload: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } })).statusCode, 201)
  const tokenRequest = await request({ method: 'POST', url: '/api/v1/namespaces/default/serviceaccounts/robot/token', payload: { apiVersion: `${GROUPS.authentication}/v1`, kind: 'TokenRequest', spec: { audiences: [] } } })
  assert.equal(tokenRequest.statusCode, 201, tokenRequest.body)
  const issued = tokenRequest.json().status.token as string
  assert.ok(issued.length > 20)
  // The issued token used as a bearer token: neither log may show it.
  assert.notEqual((await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', as: null, headers: { authorization: `Bearer ${issued}` } })).statusCode, 401)

  const all = await eventually(() => {
    const e = events()
    assert.ok(e.some(x => x.objectRef?.subresource === 'token' && x.stage === 'ResponseComplete'), 'the last event is written')
    return e
  })
  for (const e of all) {
    assert.equal(e.kind, 'Event')
    assert.equal(e.apiVersion, `${GROUPS.audit}/v1`)
    assert.match(e.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
    assert.match(e.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  }

  // Create: both stages, same audit ID as the header; the request and response objects at RequestResponse.
  const create = all.filter(e => e.auditID === auditId)
  assert.deepEqual(create.map(e => e.stage), ['RequestReceived', 'ResponseComplete'])
  const done = create[1]!
  assert.equal(done.verb, 'create')
  assert.equal(done.user.username, 'alice')
  assert.deepEqual(done.user.groups, ['developers', 'qa', 'system:authenticated'])
  // The created object's name, from the request object, as the reference's LogRequestObject fills it.
  assert.deepEqual(done.objectRef, { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' })
  assert.deepEqual(create[0]!.objectRef, { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' }, 'RequestReceived comes before the body is read')
  assert.deepEqual(done.responseStatus, { metadata: {}, code: 201 })
  assert.equal(done.requestObject.data.k, 'v1')
  assert.equal(done.responseObject.metadata.name, 'audited')
  assert.equal(done.responseObject.metadata.managedFields, undefined, 'omitManagedFields')
  assert.ok(done.sourceIPs.length >= 1)
  assert.equal(create[0]!.requestObject, undefined)
  assert.equal(create[0]!.responseStatus, undefined)

  const complete = all.filter(e => e.stage === 'ResponseComplete')
  const patch = complete.find(e => e.verb === 'patch')!
  assert.equal(patch.user.username, 'admin')
  assert.deepEqual(patch.requestObject, { data: { k: 'v2' } })
  assert.equal(patch.objectRef.name, 'audited')
  // Reads at Metadata, RequestReceived left out by the rule.
  const get = all.filter(e => e.verb === 'get' && e.objectRef?.name === 'audited')
  assert.deepEqual(get.map(e => [e.stage, e.level, e.user.username]), [['ResponseComplete', 'Metadata', 'bob']])
  assert.equal(get[0]!.responseObject, undefined)
  const del = complete.find(e => e.verb === 'delete')!
  assert.equal(del.user.username, 'admin')
  assert.equal(del.impersonatedUser.username, 'bob')
  const missing = complete.find(e => e.objectRef?.name === 'missing')!
  assert.equal(missing.responseStatus.code, 404)
  assert.equal(missing.responseStatus.reason, 'NotFound')
  assert.equal(missing.responseStatus.status, 'Failure')
  // A watch is long-running: ResponseStarted when its stream opens, ResponseComplete when it ends.
  const watch = all.filter(e => e.verb === 'watch')
  assert.deepEqual(watch.map(e => [e.stage, e.responseStatus.code]), [['ResponseStarted', 200], ['ResponseComplete', 200]])
  // None for health; a failed authentication is recorded at ResponseStarted without a user.
  assert.equal(all.some(e => e.requestURI === '/healthz'), false)
  const unauthenticated = all.filter(e => e.requestURI === '/api/v1/namespaces')
  assert.deepEqual(unauthenticated.map(e => [e.stage, e.responseStatus.code, e.user]), [['ResponseStarted', 401, {}]])

  // Secrets and token reviews: recorded at Metadata only, whatever the policy asked.
  const secrets = all.filter(e => e.objectRef?.resource === 'secrets' || e.objectRef?.resource === 'tokenreviews')
  assert.ok(secrets.length >= 3)
  for (const e of secrets) {
    assert.equal(e.level, 'Metadata')
    assert.equal(e.requestObject, undefined)
    assert.equal(e.responseObject, undefined)
  }
  const text = readFileSync(path, 'utf8')
  assert.equal(text.includes(SECRET_VALUE), false)
  assert.equal(text.includes(Buffer.from(SECRET_VALUE).toString('base64')), false)
  for (const u of Object.values(USERS)) assert.equal(text.includes(u.token), false)
  assert.equal(text.includes('wrong'), false)
  assert.equal(text.includes(issued), false, 'the issued service account token')
  const tokenEvents = all.filter(e => e.objectRef?.subresource === 'token')
  assert.ok(tokenEvents.length >= 1)
  for (const e of tokenEvents) assert.equal(e.responseObject, undefined)
  const logText = serverLog.join('')
  assert.ok(logText.includes('"url":"/api/v1/namespaces/default/configmaps"'), 'the request lines are logged')
  for (const credential of [SECRET_VALUE, Buffer.from(SECRET_VALUE).toString('base64'), issued, ...Object.values(USERS).map(u => u.token)]) {
    assert.equal(logText.includes(credential), false, 'no credential in the server log')
  }
  await app.close()
})

test('requests the policy leaves at None get an Audit-Id and no event', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-log-'))
  const path = join(dir, 'audit.log')
  const { request } = await buildTestApp(t, { audit: { policy: POLICY, path } })
  const res = await request({ method: 'GET', url: '/version', headers: { 'audit-id': 'given-by-client' } })
  assert.equal(res.headers['audit-id'], 'given-by-client')
  await new Promise(resolve => setImmediate(resolve))
  assert.equal(existsSync(path) ? readFileSync(path, 'utf8') : '', '')
})

test('the writer rotates by size and keeps --audit-log-maxbackup files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-rotate-'))
  const path = join(dir, 'audit.log')
  const writer = createAuditLogWriter({ path, maxSizeMB: 1, maxBackups: 2 })
  const line = JSON.stringify({ filler: 'x'.repeat(100 * 1024) })
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 9; i++) writer.write(() => line)
    await new Promise(resolve => setImmediate(resolve))
  }
  await writer.close()
  const files = readdirSync(dir).sort()
  const backups = files.filter(f => f !== 'audit.log')
  assert.equal(backups.length, 2, files.join(' '))
  for (const f of backups) assert.match(f, /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/)
  for (const f of files) assert.ok(readFileSync(join(dir, f)).length <= 1024 * 1024, `${f} stays within the size`)
  // Every line written is whole JSON, in whichever file it landed.
  for (const f of files) for (const l of readFileSync(join(dir, f), 'utf8').split('\n').filter(x => x !== '')) JSON.parse(l)
})

test('rotation removes backups older than --audit-log-maxage days and keeps newer ones', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-maxage-'))
  const path = join(dir, 'audit.log')
  const old = join(dir, 'audit-2020-01-01T00-00-00.000.log')
  const recent = join(dir, 'audit-2020-01-02T00-00-00.000.log')
  writeFileSync(old, '{}\n')
  writeFileSync(recent, '{}\n')
  const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000)
  utimesSync(old, tenDaysAgo, tenDaysAgo)
  const writer = createAuditLogWriter({ path, maxSizeMB: 1, maxAgeDays: 7 })
  const line = JSON.stringify({ filler: 'x'.repeat(100 * 1024) })
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 9; i++) writer.write(() => line)
    await new Promise(resolve => setImmediate(resolve))
  }
  await writer.close()
  const files = readdirSync(dir)
  assert.equal(files.includes('audit-2020-01-01T00-00-00.000.log'), false, `the old backup is gone: ${files.join(' ')}`)
  assert.ok(files.includes('audit-2020-01-02T00-00-00.000.log'), 'a backup younger than maxage stays')
  assert.ok(files.filter(f => f !== 'audit.log').length >= 2, 'the rotation made a backup of its own')
})
