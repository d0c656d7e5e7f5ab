// Default roles and bindings are reconciled at every start: what was removed comes back, unless
// the object is annotated autoupdate=false.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { freshDatabase } from '../helpers/postgres.js'
import { GROUPS, RBAC } from '../../resources/naming.js'

const RBAC_V1 = `/apis/${GROUPS.rbac}/v1`
const mergePatch = { 'content-type': 'application/merge-patch+json' }

test('restores removed default rules and subjects at start, except where autoupdate=false', async (t) => {
  const databaseUrl = await freshDatabase(t)
  const first = await buildTestApp(t, { databaseUrl })
  const strip = await first.request({ method: 'PATCH', url: `${RBAC_V1}/clusterroles/system:discovery`, headers: mergePatch, payload: { rules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] } })
  assert.equal(strip.statusCode, 200, strip.body)
  const emptied = await first.request({ method: 'PATCH', url: `${RBAC_V1}/clusterrolebindings/system:basic-user`, headers: mergePatch, payload: { subjects: [] } })
  assert.equal(emptied.statusCode, 200, emptied.body)
  const pinned = await first.request({
    method: 'PATCH', url: `${RBAC_V1}/clusterroles/system:monitoring`, headers: mergePatch,
    payload: { metadata: { annotations: { [RBAC.autoupdateAnnotation]: 'false' } }, rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] }
  })
  assert.equal(pinned.statusCode, 200, pinned.body)
  await first.app.close()

  const second = await buildTestApp(t, { databaseUrl })
  const discovery = (await second.request({ method: 'GET', url: `${RBAC_V1}/clusterroles/system:discovery` })).json()
  assert.ok(discovery.rules.some((r: { nonResourceURLs?: string[] }) => r.nonResourceURLs?.includes('/apis/*')), 'missing rules are added back')
  assert.ok(discovery.rules.some((r: { nonResourceURLs?: string[] }) => r.nonResourceURLs?.length === 1 && r.nonResourceURLs[0] === '/version'), 'rules added by hand stay')
  const basic = (await second.request({ method: 'GET', url: `${RBAC_V1}/clusterrolebindings/system:basic-user` })).json()
  assert.deepEqual(basic.subjects, [{ kind: 'Group', apiGroup: GROUPS.rbac, name: 'system:authenticated' }])
  const monitoring = (await second.request({ method: 'GET', url: `${RBAC_V1}/clusterroles/system:monitoring` })).json()
  assert.deepEqual(monitoring.rules, [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }], 'autoupdate=false is left alone')
})
