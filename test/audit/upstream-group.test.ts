// A request through the upstream spelling of a group is audited as the client asked: objectRef
// names that spelling, and a policy rule naming either spelling applies to it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { parsePolicy } from '../../plugins/audit/policy.js'
import { GROUPS, upstreamGroup } from '../../resources/naming.js'

test('an upstream-spelled request is audited under its spelling, by rules naming either', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'audit-upstream-')), 'audit.log')
  const policy = parsePolicy({
    apiVersion: `${GROUPS.audit}/v1`,
    kind: 'Policy',
    rules: [
      { level: 'RequestResponse', resources: [{ group: GROUPS.coordination, resources: ['leases'] }] },
      { level: 'None' }
    ]
  })
  const { request } = await buildTestApp(t, { audit: { policy, path } })
  const upstream = upstreamGroup('coordination')
  const created = await request({
    method: 'POST',
    url: `/apis/${upstream}/v1/namespaces/default/leases`,
    payload: { apiVersion: `${upstream}/v1`, kind: 'Lease', metadata: { name: 'upstream-audited' }, spec: { holderIdentity: 'a' } }
  })
  assert.equal(created.statusCode, 201, created.body)

  await eventually(() => {
    const events = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l)) : []
    const done = events.find(e => e.verb === 'create' && e.stage === 'ResponseComplete')
    assert.ok(done !== undefined, 'the create is audited at the level the rule naming our spelling gives')
    assert.equal(done.level, 'RequestResponse')
    assert.deepEqual(done.objectRef, { resource: 'leases', namespace: 'default', name: 'upstream-audited', apiGroup: upstream, apiVersion: 'v1' })
    assert.equal(done.requestObject.apiVersion, `${upstream}/v1`)
    assert.equal(done.responseObject.apiVersion, `${upstream}/v1`)
  }, 10_000, 100)
})
