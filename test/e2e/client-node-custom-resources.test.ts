// @kubernetes/client-node with a real project's CustomResourceDefinition (prometheus-operator's
// ServiceMonitor, in test/fixtures): created through ApiextensionsV1Api and waited on, then
// instances through CustomObjectsApi (create, get, list, a merge patch chosen through the call's
// options, its default JSON patch, a status patch, delete) while its Watch class follows them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as k8s from '@kubernetes/client-node'
import { startTestServer } from '../helpers/tls-app.js'
import { eventually } from '../helpers/eventually.js'

const MANIFEST = join(import.meta.dirname, '..', 'fixtures', 'servicemonitors-crd.yaml')
const GROUP = 'monitoring.coreos.com'
const VERSION = 'v1'
const PLURAL = 'servicemonitors'
const NS = 'default'

interface ServiceMonitor { apiVersion: string, kind: string, metadata: k8s.V1ObjectMeta, spec: any, status?: any }

const monitor = (name: string, app: string): ServiceMonitor => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'ServiceMonitor',
  metadata: { name, labels: { client: 'node' } },
  spec: { selector: { matchLabels: { app } }, endpoints: [{ port: 'http' }] }
})

test('client-node: a ServiceMonitor through CustomObjectsApi, followed by Watch', async (t) => {
  const server = await startTestServer(t)
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(server.kubeconfig)

  const extensions = kc.makeApiClient(k8s.ApiextensionsV1Api)
  const crd = k8s.loadYaml<k8s.V1CustomResourceDefinition>(readFileSync(MANIFEST, 'utf8'))
  await extensions.createCustomResourceDefinition({ body: crd })
  const established = await eventually(async () => {
    const got = await extensions.readCustomResourceDefinition({ name: crd.metadata!.name! })
    assert.equal(got.status?.conditions?.find(c => c.type === 'Established')?.status, 'True')
    return got
  })
  assert.deepEqual(established.status?.acceptedNames?.shortNames, ['smon'])

  const watched: string[] = []
  const watchErrors: unknown[] = []
  const watch = new k8s.Watch(kc)
  const controller = await watch.watch(`/apis/${GROUP}/${VERSION}/namespaces/${NS}/${PLURAL}`, {},
    (phase, obj: ServiceMonitor) => { watched.push(`${phase} ${obj.metadata.name} ${obj.spec?.jobLabel ?? '-'} ${obj.status === undefined ? '-' : 'status'}`) },
    (err) => { if (err !== null && err !== undefined && (err as Error).name !== 'AbortError') watchErrors.push(err) })
  t.after(() => controller.abort())

  const custom = kc.makeApiClient(k8s.CustomObjectsApi)
  const created: ServiceMonitor = await custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, body: monitor('node', 'web') })
  assert.equal(created.metadata.generation, 1)
  assert.deepEqual(created.spec, { selector: { matchLabels: { app: 'web' } }, endpoints: [{ port: 'http' }] })

  const got: ServiceMonitor = await custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, name: 'node' })
  assert.equal(got.kind, 'ServiceMonitor')
  assert.equal(got.metadata.uid, created.metadata.uid)

  await custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, body: { ...monitor('other', 'api'), metadata: { name: 'other' } } })
  const listed = await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, labelSelector: 'client=node' })
  assert.equal(listed.kind, 'ServiceMonitorList')
  assert.deepEqual(listed.items.map((i: ServiceMonitor) => i.metadata.name), ['node'])
  const all = await custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })
  assert.deepEqual(all.items.map((i: ServiceMonitor) => i.metadata.name).sort(), ['node', 'other'])

  // A merge patch: the content type set through the call's options.
  const merged: ServiceMonitor = await custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, name: 'node', body: { spec: { jobLabel: 'app' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch))
  assert.equal(merged.spec.jobLabel, 'app')
  assert.equal(merged.metadata.generation, 2)
  // Its default is a JSON patch.
  const jsonPatched: ServiceMonitor = await custom.patchNamespacedCustomObject({
    group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, name: 'node',
    body: [{ op: 'add', path: '/spec/targetLabels', value: ['team'] }]
  })
  assert.deepEqual(jsonPatched.spec.targetLabels, ['team'])

  const status = { bindings: [{ group: GROUP, resource: 'prometheuses', name: 'k8s', namespace: 'monitoring' }] }
  const withStatus: ServiceMonitor = await custom.patchNamespacedCustomObjectStatus(
    { group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, name: 'node', body: { status } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch))
  assert.deepEqual(withStatus.status, status)
  assert.equal(withStatus.metadata.generation, 3, 'a status patch leaves the generation')

  await assert.rejects(custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, body: { ...monitor('bad', 'x'), spec: { endpoints: [] } } }),
    (err: any) => {
      assert.equal(err.code, 422)
      const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body
      assert.equal(body.message, 'ServiceMonitor.monitoring.coreos.com "bad" is invalid: spec.selector: Required value')
      return true
    })

  const deleted = await custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, name: 'node' })
  assert.equal(deleted.status, 'Success')
  await assert.rejects(custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: NS, plural: PLURAL, name: 'node' }),
    (err: any) => err.code === 404)

  await eventually(() => assert.equal(watched.filter(w => w.startsWith('DELETED')).length, 1))
  assert.deepEqual(watched, [
    'ADDED node - -',
    'ADDED other - -',
    'MODIFIED node app -',
    'MODIFIED node app -',
    'MODIFIED node app status',
    'DELETED node app status'
  ])
  assert.deepEqual(watchErrors, [])
})
