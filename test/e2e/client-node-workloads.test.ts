// @kubernetes/client-node's typed workload APIs: AppsV1Api creates a Deployment and a
// StatefulSet, reads and replaces their Scale, patches a Deployment's template, lists across
// namespaces; BatchV1Api a Job. Errors arrive as the client's ApiException with the Status body.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as k8s from '@kubernetes/client-node'
import { startTestServer } from '../helpers/tls-app.js'

const clientFor = <T extends k8s.ApiType>(kubeconfig: string, api: k8s.ApiConstructor<T>): T => {
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(kubeconfig)
  return kc.makeApiClient(api)
}

const template = (app: string, restartPolicy?: string): k8s.V1PodTemplateSpec => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...(restartPolicy === undefined ? {} : { restartPolicy }) }
})

test('client-node: AppsV1Api and BatchV1Api', async (t) => {
  const server = await startTestServer(t)
  const apps = clientFor(server.kubeconfig, k8s.AppsV1Api)
  const batch = clientFor(server.kubeconfig, k8s.BatchV1Api)
  const namespace = 'default'

  const created = await apps.createNamespacedDeployment({ namespace, body: { metadata: { name: 'node-web' }, spec: { selector: { matchLabels: { app: 'node-web' } }, template: template('node-web') } } })
  assert.equal(created.spec?.replicas, 1)
  assert.equal(created.spec?.strategy?.rollingUpdate?.maxUnavailable, '25%')

  const scale = await apps.readNamespacedDeploymentScale({ name: 'node-web', namespace })
  assert.equal(scale.kind, 'Scale')
  assert.equal(scale.status?.selector, 'app=node-web')
  const replaced = await apps.replaceNamespacedDeploymentScale({ name: 'node-web', namespace, body: { ...scale, spec: { replicas: 3 } } })
  assert.equal(replaced.spec?.replicas, 3)
  assert.equal((await apps.readNamespacedDeployment({ name: 'node-web', namespace })).spec?.replicas, 3)

  const patched = await apps.patchNamespacedDeployment({ name: 'node-web', namespace, body: { spec: { paused: true } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch))
  assert.equal(patched.spec?.paused, true)

  const sts = await apps.createNamespacedStatefulSet({ namespace, body: { metadata: { name: 'node-db' }, spec: { serviceName: 'node-db', selector: { matchLabels: { app: 'node-db' } }, template: template('node-db') } } })
  assert.equal(sts.spec?.podManagementPolicy, 'OrderedReady')
  assert.equal(sts.spec?.updateStrategy?.type, 'RollingUpdate')
  const stsScale = await apps.readNamespacedStatefulSetScale({ name: 'node-db', namespace })
  assert.equal(stsScale.status?.selector, 'app=node-db')

  const all = await apps.listDeploymentForAllNamespaces()
  assert.deepEqual(all.items.map(d => d.metadata?.name), ['node-web'])

  await assert.rejects(
    apps.createNamespacedDeployment({ namespace, body: { metadata: { name: 'negative' }, spec: { replicas: -1, selector: { matchLabels: { app: 'x' } }, template: template('x') } } }),
    (err: any) => {
      assert.equal(err.code, 422)
      assert.match(String(err.body), /spec\.replicas: Invalid value: -1: must be greater than or equal to 0/)
      return true
    })

  const job = await batch.createNamespacedJob({ namespace, body: { metadata: { name: 'node-job' }, spec: { template: template('job', 'Never') } } })
  assert.equal(job.spec?.backoffLimit, 6)
  assert.equal(job.spec?.template.metadata?.labels?.['job-name'], 'node-job')
})
