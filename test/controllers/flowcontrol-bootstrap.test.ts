// The priority and fairness bootstrap configuration: present after start; at the next start the
// mandatory objects come back whatever was done to them, suggested ones only while annotated
// autoupdate-spec "true"; objects a former bootstrap made and this one does not have go.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { freshDatabase } from '../helpers/postgres.js'
import { FLOWCONTROL, GROUPS } from '../../resources/naming.js'
import {
  REFERENCE_MANDATORY_FLOW_SCHEMAS, REFERENCE_MANDATORY_PRIORITY_LEVELS, REFERENCE_SUGGESTED_FLOW_SCHEMAS, REFERENCE_SUGGESTED_PRIORITY_LEVELS
} from '../fixtures/flowcontrol-reference-bootstrap.js'

const V1 = `/apis/${GROUPS.flowcontrol}/v1`
const mergePatch = { 'content-type': 'application/merge-patch+json' }
/** Name, annotations and spec of each object, by name: what the bootstrap decides. */
const bootstrapped = (objects: readonly Record<string, any>[]): Array<[string, unknown]> =>
  objects.map(o => [o.metadata.name, { annotations: o.metadata.annotations, spec: o.spec }] as [string, unknown]).sort(([a], [b]) => a.localeCompare(b))

test('makes the bootstrap objects at start and keeps them as the reference does', async (t) => {
  const databaseUrl = await freshDatabase(t)
  const first = await buildTestApp(t, { databaseUrl })
  const levels = (await first.request({ method: 'GET', url: `${V1}/prioritylevelconfigurations` })).json()
  assert.deepEqual(bootstrapped(levels.items), bootstrapped([...REFERENCE_MANDATORY_PRIORITY_LEVELS, ...REFERENCE_SUGGESTED_PRIORITY_LEVELS]))
  const schemas = (await first.request({ method: 'GET', url: `${V1}/flowschemas` })).json()
  assert.deepEqual(bootstrapped(schemas.items), bootstrapped([...REFERENCE_MANDATORY_FLOW_SCHEMAS, ...REFERENCE_SUGGESTED_FLOW_SCHEMAS]))

  // A mandatory object deleted, another one's annotation turned off, exempt's own settings tuned.
  assert.equal((await first.request({ method: 'DELETE', url: `${V1}/flowschemas/catch-all` })).statusCode, 200)
  const off = { metadata: { annotations: { [FLOWCONTROL.autoupdateAnnotation]: 'false' } } }
  assert.equal((await first.request({ method: 'PATCH', url: `${V1}/prioritylevelconfigurations/catch-all`, headers: mergePatch, payload: off })).statusCode, 200)
  const tuned = await first.request({ method: 'PATCH', url: `${V1}/prioritylevelconfigurations/exempt`, headers: mergePatch, payload: { spec: { exempt: { nominalConcurrencyShares: 7 } } } })
  assert.equal(tuned.statusCode, 200, tuned.body)
  // Suggested objects: one changed while still annotated true, one changed and annotated false, one deleted.
  const changed = await first.request({ method: 'PATCH', url: `${V1}/prioritylevelconfigurations/global-default`, headers: mergePatch, payload: { spec: { limited: { nominalConcurrencyShares: 3 } } } })
  assert.equal(changed.statusCode, 200, changed.body)
  const pinned = await first.request({ method: 'PATCH', url: `${V1}/flowschemas/service-accounts`, headers: mergePatch, payload: { ...off, spec: { matchingPrecedence: 8000 } } })
  assert.equal(pinned.statusCode, 200, pinned.body)
  assert.equal((await first.request({ method: 'DELETE', url: `${V1}/flowschemas/probes` })).statusCode, 200)
  // One a former bootstrap made, and one of the user's own.
  const rule = { priorityLevelConfiguration: { name: 'workload-low' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'bob' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] }] }
  const former = await first.request({ method: 'POST', url: `${V1}/flowschemas`, payload: { metadata: { name: 'retired', annotations: { [FLOWCONTROL.autoupdateAnnotation]: 'true' } }, spec: rule } })
  assert.equal(former.statusCode, 201, former.body)
  assert.equal((await first.request({ method: 'POST', url: `${V1}/flowschemas`, payload: { metadata: { name: 'mine' }, spec: rule } })).statusCode, 201)
  // What an earlier release made under the upstream schema names, with the upstream annotation.
  const formerKey = await first.request({ method: 'POST', url: `${V1}/flowschemas`, payload: { metadata: { name: 'kube-scheduler', annotations: { [FLOWCONTROL.formerAutoupdateAnnotation]: 'true' } }, spec: rule } })
  assert.equal(formerKey.statusCode, 201, formerKey.body)
  await first.app.close()

  const second = await buildTestApp(t, { databaseUrl })
  const get = async (resource: string, name: string) => second.request({ method: 'GET', url: `${V1}/${resource}/${name}` })
  assert.equal((await get('flowschemas', 'catch-all')).statusCode, 200, 'a deleted mandatory object comes back')
  assert.equal((await get('prioritylevelconfigurations', 'catch-all')).json().metadata.annotations[FLOWCONTROL.autoupdateAnnotation], 'true', 'mandatory objects are always kept')
  assert.deepEqual((await get('prioritylevelconfigurations', 'exempt')).json().spec.exempt, { nominalConcurrencyShares: 7, lendablePercent: 0 }, 'exempt\'s own settings stay')
  assert.equal((await get('prioritylevelconfigurations', 'global-default')).json().spec.limited.nominalConcurrencyShares, 20, 'a suggested object annotated true gets its spec back')
  const serviceAccounts = (await get('flowschemas', 'service-accounts')).json()
  assert.equal(serviceAccounts.spec.matchingPrecedence, 8000, 'a suggested object annotated false is left alone')
  assert.equal(serviceAccounts.metadata.annotations[FLOWCONTROL.autoupdateAnnotation], 'false')
  assert.equal((await get('flowschemas', 'probes')).statusCode, 200, 'a deleted suggested object is made again')
  assert.equal((await get('flowschemas', 'retired')).statusCode, 404, 'an object annotated true that is no bootstrap object goes')
  assert.equal((await get('flowschemas', 'kube-scheduler')).statusCode, 404, 'so does one an earlier release annotated with the upstream key')
  const mine = (await get('flowschemas', 'mine')).json()
  assert.equal(mine.metadata.name, 'mine', 'objects without the annotation are the user\'s')
})
