// HorizontalPodAutoscaler (autoscaling/v2, served as autoscaling/v1 too): the v2 defaults, the
// validation rules, the v1 conversion with its round-trip annotations, status only through
// /status in either version, and kubectl's columns.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'
import { fromV1, ROUND_TRIP_ANNOTATIONS, toV1 } from '../../resources/hpa-v1-conversion.js'

const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers'
const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

type Obj = Record<string, any>
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }
const spec = (extra: Obj = {}): Obj => ({ scaleTargetRef: ref, maxReplicas: 5, ...extra })
const cpu = (utilization: number): Obj => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } })
const pods = (name = 'packets', averageValue = '1k'): Obj => ({ type: 'Pods', pods: { metric: { name }, target: { type: 'AverageValue', averageValue } } })
const external = (target: Obj): Obj => ({ type: 'External', external: { metric: { name: 'queue' }, target } })
const object = (target: Obj): Obj => ({ type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'requests' }, target } })
const container = (extra: Obj = {}): Obj => ({ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 }, ...extra } })
const rules = (extra: Obj = {}): Obj => ({ policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }], ...extra })
const policy = (extra: Obj): Obj => rules({ policies: [{ type: 'Pods', value: 1, periodSeconds: 60, ...extra }] })

interface Case { name: string, spec: Obj, field?: string, reason?: string, message?: string }

const cases: Case[] = [
  { name: 'the minimal autoscaler', spec: spec() },
  { name: 'every metric source', spec: spec({ metrics: [cpu(50), pods(), external({ type: 'Value', value: '10' }), object({ type: 'AverageValue', averageValue: '20' }), container()] }) },
  { name: 'a scale target without kind', spec: spec({ scaleTargetRef: { name: 'web' } }), field: 'spec.scaleTargetRef.kind', reason: 'FieldValueRequired' },
  { name: 'a scale target with an empty name', spec: spec({ scaleTargetRef: { kind: 'Deployment', name: '' } }), field: 'spec.scaleTargetRef.name', reason: 'FieldValueRequired' },
  { name: 'a scale target name with a slash', spec: spec({ scaleTargetRef: { kind: 'Deployment', name: 'a/b' } }), field: 'spec.scaleTargetRef.name', reason: 'FieldValueInvalid', message: "may not contain '/'" },
  { name: 'a scale target kind of ..', spec: spec({ scaleTargetRef: { kind: '..', name: 'web' } }), field: 'spec.scaleTargetRef.kind', reason: 'FieldValueInvalid', message: "may not be '..'" },
  { name: 'minReplicas 0 (HPAScaleToZero is off)', spec: spec({ minReplicas: 0, metrics: [external({ type: 'Value', value: '1' })] }), field: 'spec.minReplicas', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 1' },
  { name: 'maxReplicas 0', spec: spec({ maxReplicas: 0 }), field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'must be greater than 0' },
  { name: 'no maxReplicas', spec: { scaleTargetRef: ref }, field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'must be greater than 0' },
  { name: 'no scale target', spec: { maxReplicas: 2 }, field: 'spec.scaleTargetRef.name', reason: 'FieldValueRequired' },
  { name: 'a metric of no type', spec: spec({ metrics: [{ resource: cpu(50).resource }] }), field: 'spec.metrics[0].type', reason: 'FieldValueRequired', message: 'must specify a metric source type' },
  { name: 'maxReplicas under minReplicas', spec: spec({ minReplicas: 6 }), field: 'spec.maxReplicas', reason: 'FieldValueInvalid', message: 'must be greater than or equal to `minReplicas`' },
  { name: 'a metric without type', spec: spec({ metrics: [{ ...cpu(50), type: '' }] }), field: 'spec.metrics[0].type', reason: 'FieldValueRequired', message: 'must specify a metric source type' },
  { name: 'an unknown metric type', spec: spec({ metrics: [{ type: 'Custom' }] }), field: 'spec.metrics[0].type', reason: 'FieldValueNotSupported', message: 'supported values: "ContainerResource", "External", "Object", "Pods", "Resource"' },
  { name: 'a metric type without its source', spec: spec({ metrics: [{ type: 'Pods', resource: cpu(50).resource }] }), field: 'spec.metrics[0].pods', reason: 'FieldValueRequired', message: 'must populate information for the given metric source' },
  { name: 'a metric with two sources', spec: spec({ metrics: [{ ...cpu(50), pods: pods().pods }] }), field: 'spec.metrics[0].pods', reason: 'FieldValueForbidden', message: 'must populate the given metric source only' },
  { name: 'a resource metric without name', spec: spec({ metrics: [{ type: 'Resource', resource: { name: '', target: { type: 'Utilization', averageUtilization: 50 } } }] }), field: 'spec.metrics[0].resource.name', reason: 'FieldValueRequired', message: 'must specify a resource name' },
  { name: 'a target of an unknown type', spec: spec({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Percent', averageUtilization: 50 } } }] }), field: 'spec.metrics[0].resource.target.type', reason: 'FieldValueInvalid', message: 'must be either Utilization, Value, or AverageValue' },
  { name: 'a target without type', spec: spec({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: '', averageUtilization: 50 } } }] }), field: 'spec.metrics[0].resource.target.type', reason: 'FieldValueRequired', message: 'must specify a metric target type' },
  { name: 'a utilization of 0', spec: spec({ metrics: [cpu(0)] }), field: 'spec.metrics[0].resource.target.averageUtilization', reason: 'FieldValueInvalid', message: 'must be greater than 0' },
  { name: 'a resource target with neither value', spec: spec({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }] }), field: 'spec.metrics[0].resource.target.averageUtilization', reason: 'FieldValueRequired', message: 'must set either a target raw value or a target utilization' },
  { name: 'a resource target with both values', spec: spec({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50, averageValue: '1' } } }] }), field: 'spec.metrics[0].resource.target.averageValue', reason: 'FieldValueForbidden', message: 'may not set both a target raw value and a target utilization' },
  { name: 'a negative average value', spec: spec({ metrics: [pods('packets', '-1')] }), field: 'spec.metrics[0].pods.target.averageValue', reason: 'FieldValueInvalid', message: 'must be positive' },
  { name: 'a pods target without averageValue', spec: spec({ metrics: [{ type: 'Pods', pods: { metric: { name: 'x' }, target: { type: 'Value', value: '1' } } }] }), field: 'spec.metrics[0].pods.target.averageValue', reason: 'FieldValueRequired', message: 'must specify a positive target averageValue' },
  { name: 'a metric without name', spec: spec({ metrics: [pods('')] }), field: 'spec.metrics[0].pods.metric.name', reason: 'FieldValueRequired', message: 'must specify a metric name' },
  { name: 'a resource metric without target', spec: spec({ metrics: [{ type: 'Resource', resource: { name: 'cpu' } }] }), field: 'spec.metrics[0].resource.target.type', reason: 'FieldValueRequired', message: 'must specify a metric target type' },
  { name: 'an external target with neither value', spec: spec({ metrics: [external({ type: 'Value' })] }), field: 'spec.metrics[0].external.target.averageValue', reason: 'FieldValueRequired', message: 'must set either a target value for metric or a per-pod target' },
  { name: 'an external target with both values', spec: spec({ metrics: [external({ type: 'Value', value: '1', averageValue: '1' })] }), field: 'spec.metrics[0].external.target.value', reason: 'FieldValueForbidden', message: 'may not set both a target value for metric and a per-pod target' },
  { name: 'an object target with neither value', spec: spec({ metrics: [object({ type: 'Value' })] }), field: 'spec.metrics[0].object.target.averageValue', reason: 'FieldValueRequired', message: 'must set either a target value or averageValue' },
  { name: 'an object metric without described object', spec: spec({ metrics: [{ ...object({ type: 'Value', value: '1' }), object: { ...object({}).object, describedObject: { kind: '', name: 'x' }, target: { type: 'Value', value: '1' } } }] }), field: 'spec.metrics[0].object.describedObject.kind', reason: 'FieldValueRequired' },
  { name: 'a container metric without container', spec: spec({ metrics: [container({ container: '' })] }), field: 'spec.metrics[0].containerResource.container', reason: 'FieldValueRequired', message: 'must specify a container' },
  { name: 'a container name that is no label', spec: spec({ metrics: [container({ container: 'App_1' })] }), field: 'spec.metrics[0].containerResource.container', reason: 'FieldValueInvalid', message: 'RFC 1123 label' },
  { name: 'a container metric of pods', spec: spec({ metrics: [container({ name: 'pods' })] }), field: 'spec.metrics[0].containerResource.name', reason: 'FieldValueInvalid', message: 'must be a standard resource for containers' },
  { name: 'a behavior', spec: spec({ behavior: { scaleUp: policy({ type: 'Percent', value: 50 }), scaleDown: rules({ selectPolicy: 'Disabled', stabilizationWindowSeconds: 3600 }) } }) },
  { name: 'a rule without policies', spec: spec({ behavior: { scaleUp: { policies: [] } } }), field: 'spec.behavior.scaleUp.policies', reason: 'FieldValueRequired', message: 'must specify at least one Policy' },
  { name: 'an unknown policy type', spec: spec({ behavior: { scaleUp: policy({ type: 'Replicas' }) } }), field: 'spec.behavior.scaleUp.policies[0].type', reason: 'FieldValueNotSupported', message: 'supported values: "Percent", "Pods"' },
  { name: 'a policy without value', spec: spec({ behavior: { scaleDown: { policies: [{ type: 'Pods', periodSeconds: 15 }] } } }), field: 'spec.behavior.scaleDown.policies[0].value', reason: 'FieldValueInvalid', message: 'must be greater than zero' },
  { name: 'a policy value of 0', spec: spec({ behavior: { scaleDown: policy({ value: 0 }) } }), field: 'spec.behavior.scaleDown.policies[0].value', reason: 'FieldValueInvalid', message: 'must be greater than zero' },
  { name: 'a policy period of 0', spec: spec({ behavior: { scaleDown: policy({ periodSeconds: 0 }) } }), field: 'spec.behavior.scaleDown.policies[0].periodSeconds', reason: 'FieldValueInvalid', message: 'must be greater than zero' },
  { name: 'a policy period over 1800', spec: spec({ behavior: { scaleDown: policy({ periodSeconds: 1801 }) } }), field: 'spec.behavior.scaleDown.policies[0].periodSeconds', reason: 'FieldValueInvalid', message: 'must be less than or equal to 1800' },
  { name: 'a negative stabilization window', spec: spec({ behavior: { scaleUp: rules({ stabilizationWindowSeconds: -1 }) } }), field: 'spec.behavior.scaleUp.stabilizationWindowSeconds', reason: 'FieldValueInvalid', message: 'must be greater than or equal to zero' },
  { name: 'a stabilization window over an hour', spec: spec({ behavior: { scaleUp: rules({ stabilizationWindowSeconds: 3601 }) } }), field: 'spec.behavior.scaleUp.stabilizationWindowSeconds', reason: 'FieldValueInvalid', message: 'must be less than or equal to 3600' },
  { name: 'an unknown selectPolicy', spec: spec({ behavior: { scaleDown: rules({ selectPolicy: 'Avg' }) } }), field: 'spec.behavior.scaleDown.selectPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "Disabled", "Max", "Min"' }
]

describe('HorizontalPodAutoscaler', () => {
  const app = suiteApp()
  let n = 0
  const create = async (url: string, body: Obj) => await app().request({ method: 'POST', url, payload: body })
  const get = async (url: string) => (await app().request({ method: 'GET', url })).json()

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await create(V2, { metadata: { name: `hpa${++n}` }, spec: c.spec })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('defaults minReplicas to 1 and the metrics to 80% CPU, and gives no behavior', async () => {
    const res = await create(V2, { metadata: { name: 'defaulted' }, spec: spec() })
    assert.equal(res.statusCode, 201, res.body)
    const hpa = res.json()
    assert.equal(hpa.spec.minReplicas, 1)
    assert.deepEqual(hpa.spec.metrics, [cpu(80)])
    assert.equal(hpa.spec.behavior, undefined)
    assert.deepEqual(hpa.status, { desiredReplicas: 0 })
    assert.equal(hpa.metadata.generation, 1)
  })

  it('completes a behavior that is set: scale up 0s, Max, 4 pods or 100% per 15s; scale down Max, 100% per 15s, no window', async () => {
    const res = await create(V2, { metadata: { name: 'behaved' }, spec: spec({ behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }) })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().spec.behavior, {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] }
    })
    const empty = await create(V2, { metadata: { name: 'empty-behavior' }, spec: spec({ behavior: {} }) })
    assert.equal(empty.json().spec.behavior.scaleDown.stabilizationWindowSeconds, undefined)
  })

  it('drops a tolerance while HPAConfigurableTolerance is off', async () => {
    const res = await create(V2, { metadata: { name: 'tolerant' }, spec: spec({ behavior: { scaleUp: rules({ tolerance: '0.05' }) } }) })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.behavior.scaleUp.tolerance, undefined)
  })

  it('bumps the generation on spec changes only', async () => {
    await create(V2, { metadata: { name: 'gen' }, spec: spec() })
    const same = await app().request({ method: 'PATCH', url: `${V2}/gen`, headers: mergePatch, payload: { metadata: { labels: { a: 'b' } } } })
    assert.equal(same.json().metadata.generation, 1)
    const changed = await app().request({ method: 'PATCH', url: `${V2}/gen`, headers: mergePatch, payload: { spec: { maxReplicas: 7 } } })
    assert.equal(changed.json().metadata.generation, 2)
    const invalid = await app().request({ method: 'PATCH', url: `${V2}/gen`, headers: mergePatch, payload: { spec: { minReplicas: 0 } } })
    assertInvalid(invalid, 'spec.minReplicas', 'FieldValueInvalid', 'must be greater than or equal to 1')
  })

  it('takes status only through /status, and checks its replica counts', async () => {
    const status = { currentReplicas: 2, desiredReplicas: 3, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 40 } } }], conditions: [{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale' }] }
    await create(V2, { metadata: { name: 'stat' }, spec: spec(), status })
    assert.deepEqual((await get(`${V2}/stat`)).status, { desiredReplicas: 0 })
    const main = await app().request({ method: 'PATCH', url: `${V2}/stat`, headers: mergePatch, payload: { status } })
    assert.deepEqual(main.json().status, { desiredReplicas: 0 })
    const bad = await app().request({ method: 'PATCH', url: `${V2}/stat/status`, headers: mergePatch, payload: { status: { desiredReplicas: -1 } } })
    assertInvalid(bad, 'status.desiredReplicas', 'FieldValueInvalid', 'must be greater than or equal to 0')
    const ok = await app().request({ method: 'PATCH', url: `${V2}/stat/status`, headers: mergePatch, payload: { spec: { maxReplicas: 9 }, status } })
    assert.equal(ok.statusCode, 200, ok.body)
    assert.deepEqual(ok.json().status, status)
    assert.equal(ok.json().spec.maxReplicas, 5)
  })

  it('serves autoscaling/v1 over the same objects: created via v1, read via v2', async () => {
    const res = await create(V1, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'from-v1' }, spec: { scaleTargetRef: ref, maxReplicas: 4, targetCPUUtilizationPercentage: 70 } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().apiVersion, 'autoscaling/v1')
    assert.deepEqual(res.json().spec, { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 70 })
    assert.deepEqual(res.json().status, { currentReplicas: 0, desiredReplicas: 0 })
    const v2 = await get(`${V2}/from-v1`)
    assert.equal(v2.apiVersion, 'autoscaling/v2')
    assert.deepEqual(v2.spec.metrics, [cpu(70)])
    assert.equal(v2.metadata.annotations, undefined)
    // Without a target the v2 default reads back as v1's 80%.
    await create(V1, { metadata: { name: 'v1-default' }, spec: { scaleTargetRef: ref, maxReplicas: 4 } })
    assert.equal((await get(`${V1}/v1-default`)).spec.targetCPUUtilizationPercentage, 80)
  })

  it('shows what v1 cannot hold in the reference\'s annotations, and an update through v1 keeps it', async () => {
    const metrics = [pods(), external({ type: 'AverageValue', averageValue: '30' }), object({ type: 'AverageValue', averageValue: '20' }), cpu(60)]
    const behavior = { scaleDown: rules({ stabilizationWindowSeconds: 120 }) }
    await create(V2, { metadata: { name: 'rich', annotations: { team: 'web' } }, spec: spec({ metrics, behavior }) })
    const v1 = await get(`${V1}/rich`)
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 60)
    const annotations = v1.metadata.annotations
    assert.equal(annotations.team, 'web')
    assert.deepEqual(JSON.parse(annotations[ROUND_TRIP_ANNOTATIONS.metrics]), [
      { type: 'Pods', pods: { metricName: 'packets', targetAverageValue: '1k' } },
      { type: 'External', external: { metricName: 'queue', targetAverageValue: '30' } },
      { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.k8s.io/v1' }, metricName: 'requests', targetValue: '0', averageValue: '20' } }
    ])
    assert.equal(annotations[ROUND_TRIP_ANNOTATIONS.behavior], '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":120,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":60}],"Tolerance":null}}')
    v1.spec.maxReplicas = 8
    const put = await app().request({ method: 'PUT', url: `${V1}/rich`, payload: v1 })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual(put.json().metadata.annotations, annotations)
    const v2 = await get(`${V2}/rich`)
    assert.equal(v2.spec.maxReplicas, 8)
    assert.deepEqual(v2.spec.metrics, metrics)
    assert.deepEqual(v2.spec.behavior.scaleDown, { ...rules({ stabilizationWindowSeconds: 120 }), selectPolicy: 'Max' })
    assert.deepEqual(v2.metadata.annotations, { team: 'web' })
    assert.equal(v2.metadata.generation, 2)
    const patched = await app().request({ method: 'PATCH', url: `${V1}/rich`, headers: mergePatch, payload: { spec: { targetCPUUtilizationPercentage: 65 } } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual((await get(`${V2}/rich`)).spec.metrics, [...metrics.slice(0, 3), cpu(65)])
  })

  it('keeps conditions and current metrics through a v1 status write', async () => {
    await create(V2, { metadata: { name: 'watched' }, spec: spec({ metrics: [pods(), cpu(50)] }) })
    const status = {
      currentReplicas: 3,
      desiredReplicas: 4,
      lastScaleTime: '2025-01-01T00:00:00Z',
      currentMetrics: [{ type: 'Pods', pods: { metric: { name: 'packets' }, current: { averageValue: '2k' } } }, { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '300m', averageUtilization: 75 } } }],
      conditions: [{ type: 'ScalingActive', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'ValidMetricFound', message: 'ok' }]
    }
    const written = await app().request({ method: 'PUT', url: `${V2}/watched/status`, payload: { ...(await get(`${V2}/watched`)), status } })
    assert.equal(written.statusCode, 200, written.body)
    const v1 = await get(`${V1}/watched`)
    assert.deepEqual(v1.status, { currentReplicas: 3, desiredReplicas: 4, lastScaleTime: '2025-01-01T00:00:00Z', currentCPUUtilizationPercentage: 75 })
    assert.deepEqual(JSON.parse(v1.metadata.annotations[ROUND_TRIP_ANNOTATIONS.conditions]), status.conditions)
    assert.deepEqual(JSON.parse(v1.metadata.annotations[ROUND_TRIP_ANNOTATIONS.currentMetrics]), [
      { type: 'Pods', pods: { metricName: 'packets', currentAverageValue: '2k' } },
      { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 75, currentAverageValue: '300m' } }
    ])
    v1.status.desiredReplicas = 5
    const v1Write = await app().request({ method: 'PUT', url: `${V1}/watched/status`, payload: v1 })
    assert.equal(v1Write.statusCode, 200, v1Write.body)
    assert.equal(v1Write.json().apiVersion, 'autoscaling/v1')
    assert.deepEqual((await get(`${V2}/watched`)).status, { ...status, desiredReplicas: 5 })
    const main = await app().request({ method: 'PATCH', url: `${V1}/watched`, headers: mergePatch, payload: { status: { desiredReplicas: 9 } } })
    assert.equal(main.json().status.desiredReplicas, 5)
  })

  it('converts without loss: every v1 form back to itself', () => {
    const v1Forms: Obj[] = [
      { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a' }, spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 3 } },
      { metadata: { name: 'b', annotations: { x: 'y' } }, spec: { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 50 }, status: { currentReplicas: 0, desiredReplicas: 1, currentCPUUtilizationPercentage: 40 } },
      toV1({ metadata: { name: 'c' }, spec: { scaleTargetRef: ref, maxReplicas: 3, metrics: [pods(), cpu(50), container()], behavior: { scaleUp: rules({ tolerance: '50m' }) } }, status: { desiredReplicas: 2, currentMetrics: [{ type: 'External', external: { metric: { name: 'q' }, current: { value: '3' } } }], conditions: [{ type: 'AbleToScale', status: 'False' }] } })
    ]
    for (const form of v1Forms) assert.deepEqual(toV1(fromV1(form)), form)
    // A malformed annotation is dropped, as the reference moves only well-formed data into fields.
    const malformed = fromV1({ metadata: { name: 'm', annotations: { [ROUND_TRIP_ANNOTATIONS.metrics]: '{', [ROUND_TRIP_ANNOTATIONS.behavior]: '[]' } }, spec: { scaleTargetRef: ref, maxReplicas: 2 } })
    assert.deepEqual(malformed, { metadata: { name: 'm' }, spec: { scaleTargetRef: ref, maxReplicas: 2 } })
  })

  it('shows an autoscaler as kubectl does in either version: reference, targets, min and max pods, replicas', async () => {
    await create(V2, { metadata: { name: 'shown' }, spec: spec({ metrics: [cpu(80), { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } }, pods(), external({ type: 'Value', value: '10' })] }) })
    await app().request({ method: 'PATCH', url: `${V2}/shown/status`, headers: mergePatch, payload: { status: { currentReplicas: 2, desiredReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 35 } } }] } } })
    for (const url of [V2, V1]) {
      const t = (await app().request({ method: 'GET', url, headers: TABLE })).json()
      assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age'])
      const row = (name: string) => t.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells
      assert.deepEqual(row('shown').slice(0, 6), ['shown', 'Deployment/web', 'cpu: 35%/80%, memory: <unknown>/1Gi + 2 more...', '1', 5, 2])
      assert.deepEqual(row('defaulted').slice(1, 6), ['Deployment/web', 'cpu: <unknown>/80%', '1', 5, 0])
    }
  })

  it('is discovered in both versions, v2 preferred, with its short name, category and status', async () => {
    const group = (await app().request({ method: 'GET', url: '/apis/autoscaling' })).json()
    assert.deepEqual(group.versions.map((v: { version: string }) => v.version), ['v2', 'v1'])
    assert.equal(group.preferredVersion.version, 'v2')
    for (const version of ['v1', 'v2']) {
      const list = (await app().request({ method: 'GET', url: `/apis/autoscaling/${version}` })).json()
      const hpa = list.resources.find((r: { name: string }) => r.name === 'horizontalpodautoscalers')
      assert.deepEqual(hpa.shortNames, ['hpa'])
      assert.deepEqual(hpa.categories, ['all'])
      assert.ok(list.resources.some((r: { name: string }) => r.name === 'horizontalpodautoscalers/status'), version)
    }
  })
})
