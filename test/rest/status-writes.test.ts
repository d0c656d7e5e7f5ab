// Writes through /status keep what the reference's status strategies keep: the metadata a
// status write sets (a label, an annotation), recorded under the `status` subresource, while
// each kind resets its own fields (a pod its spec and ownerReferences, a VolumeAttachment all
// user metadata).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'

const PODS = '/api/v1/namespaces/default/pods'
const VAS = '/apis/storage.svc.io/v1/volumeattachments'
const APPLY = { 'content-type': 'application/apply-patch+yaml' }
const MERGE = { 'content-type': 'application/merge-patch+json' }

type AnyObject = Record<string, any>
const entriesOf = (obj: AnyObject) => (obj.metadata.managedFields ?? []).map((e: AnyObject) => [e.manager, e.operation, e.subresource ?? '', e.fieldsV1])

async function pod (app: TestApp, name: string): Promise<AnyObject> {
  const res = await app.request({ method: 'POST', url: `${PODS}?fieldManager=creator`, payload: { metadata: { name }, spec: { containers: [{ name: 'c', image: 'i' }] } } })
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

test('an apply through pods/status that sets a label keeps it, owned under the status subresource', async (t) => {
  const app = await buildTestApp(t)
  await pod(app, 'p')
  const res = await app.request({
    method: 'PATCH',
    url: `${PODS}/p/status?fieldManager=svclet`,
    headers: APPLY,
    payload: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { ready: 'yes' } }, status: { phase: 'Running' } })
  })
  assert.equal(res.statusCode, 200, res.body)
  assert.equal(res.json().metadata.labels?.ready, 'yes')
  const stored = (await app.request({ method: 'GET', url: `${PODS}/p` })).json()
  assert.equal(stored.metadata.labels?.ready, 'yes')
  assert.equal(stored.status.phase, 'Running')
  const entry = stored.metadata.managedFields.find((e: AnyObject) => e.manager === 'svclet')
  assert.equal(entry.operation, 'Apply')
  assert.equal(entry.subresource, 'status')
  assert.deepEqual(entry.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:ready': {} } }, 'f:status': { 'f:phase': {} } })
})

test('an update through pods/status keeps its metadata but not the spec or ownerReferences', async (t) => {
  const app = await buildTestApp(t)
  const created = await pod(app, 'q')
  const body = {
    ...created,
    metadata: { ...created.metadata, labels: { phase: 'up' }, annotations: { note: 'x' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: '6a1d1f8e-1111-4b5a-9a51-000000000001' }] },
    spec: { ...created.spec, activeDeadlineSeconds: 30 },
    status: { phase: 'Running' }
  }
  const res = await app.request({ method: 'PUT', url: `${PODS}/q/status?fieldManager=svclet`, payload: body })
  assert.equal(res.statusCode, 200, res.body)
  const stored = (await app.request({ method: 'GET', url: `${PODS}/q` })).json()
  assert.deepEqual(stored.metadata.labels, { phase: 'up' })
  assert.deepEqual(stored.metadata.annotations, { note: 'x' })
  assert.equal(stored.metadata.ownerReferences, undefined)
  assert.equal(stored.spec.activeDeadlineSeconds, undefined)
  assert.equal(stored.status.phase, 'Running')
  assert.deepEqual(entriesOf(stored).filter((e: unknown[]) => e[0] === 'svclet'), [
    ['svclet', 'Update', 'status', { 'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} }, 'f:labels': { '.': {}, 'f:phase': {} } }, 'f:status': { 'f:phase': {} } }]
  ])
  // The main resource never changes status.
  const main = await app.request({ method: 'PATCH', url: `${PODS}/q`, headers: MERGE, payload: JSON.stringify({ metadata: { labels: { phase: 'main' } }, status: { phase: 'Failed' } }) })
  assert.equal(main.statusCode, 200, main.body)
  assert.equal(main.json().status.phase, 'Running')
  assert.equal(main.json().metadata.labels.phase, 'main')
})

test('a VolumeAttachment status write changes no user metadata (ResetObjectMetaForStatus)', async (t) => {
  const app = await buildTestApp(t)
  const created = await app.request({ method: 'POST', url: VAS, payload: { metadata: { name: 'va', labels: { a: '1' } }, spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } } } })
  assert.equal(created.statusCode, 201, created.body)
  const res = await app.request({ method: 'PATCH', url: `${VAS}/va/status`, headers: MERGE, payload: JSON.stringify({ metadata: { labels: { a: '2' }, annotations: { b: '1' } }, status: { attached: true } }) })
  assert.equal(res.statusCode, 200, res.body)
  assert.deepEqual(res.json().metadata.labels, { a: '1' })
  assert.equal(res.json().metadata.annotations, undefined)
  assert.equal(res.json().status.attached, true)
})
