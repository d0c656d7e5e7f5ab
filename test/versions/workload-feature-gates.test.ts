// The workloads' alpha gates turned on: what each keeps that the default server drops
// (test/resources covers the default, off).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from '../resources/suite.js'

type Obj = Record<string, any>
const mergePatch = { 'content-type': 'application/merge-patch+json' }
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'registry.example/web:1.0' }] } }
const selector = { matchLabels: { app: 'web' } }
const apps = '/apis/apps/v1/namespaces/default'
const hpas = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers'
const queue = { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '1' } } }

describe('workload feature gates on', () => {
  const app = suiteApp({
    featureGates: { DeploymentReplicaSetTerminatingReplicas: true, MaxUnavailableStatefulSet: true, HPAConfigurableTolerance: true, HPAScaleToZero: true }
  })
  const send = async (method: string, url: string, payload: Obj, headers: Obj = {}) => await app().request({ method, url, payload, headers })

  it('DeploymentReplicaSetTerminatingReplicas: status writes keep terminatingReplicas', async () => {
    for (const [plural, kind] of [['deployments', 'Deployment'], ['replicasets', 'ReplicaSet']]) {
      const created = await send('POST', `${apps}/${plural}`, { apiVersion: 'apps/v1', kind, metadata: { name: 'terminating' }, spec: { replicas: 2, selector, template } })
      assert.equal(created.statusCode, 201, created.body)
      const status = await send('PATCH', `${apps}/${plural}/terminating/status`, { status: { replicas: 2, terminatingReplicas: 1 } }, mergePatch)
      assert.equal(status.statusCode, 200, status.body)
      assert.equal(status.json().status.terminatingReplicas, 1, kind)
    }
  })

  it('MaxUnavailableStatefulSet: a new rollingUpdate.maxUnavailable is kept and validated', async () => {
    const spec = (maxUnavailable: unknown): Obj => ({ serviceName: 'web', selector, template, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable } } })
    const created = await send('POST', `${apps}/statefulsets`, { metadata: { name: 'web' }, spec: spec(2) })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().spec.updateStrategy.rollingUpdate.maxUnavailable, 2)
    assertInvalid(await send('POST', `${apps}/statefulsets`, { metadata: { name: 'zero' }, spec: spec(0) }), 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'FieldValueInvalid', 'cannot be 0')
  })

  it('HPAConfigurableTolerance: a tolerance is kept', async () => {
    const res = await send('POST', hpas, { metadata: { name: 'tolerant' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, behavior: { scaleUp: { tolerance: '50m' } } } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.behavior.scaleUp.tolerance, '50m')
  })

  it('HPAScaleToZero: minReplicas 0 is taken with an External metric, and still refused without one', async () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }
    const zero = await send('POST', hpas, { metadata: { name: 'zero' }, spec: { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 5, metrics: [queue] } })
    assert.equal(zero.statusCode, 201, zero.body)
    assert.equal(zero.json().spec.minReplicas, 0)
    const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }
    const refused = await send('POST', hpas, { metadata: { name: 'cpu-zero' }, spec: { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 5, metrics: [cpu] } })
    assert.equal(refused.statusCode, 422, refused.body)
  })
})
