// Quota and LimitRanger on the workload kinds: `count/deployments.apps` and the other workload
// counts are charged on create and refused past their limit in the reference plugin's words (the
// controller recounts them); LimitRanger leaves pod templates alone (the pods they make are
// defaulted when created).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { eventually } from '../helpers/eventually.js'

type Obj = Record<string, any>

const template = (app: string, restartPolicy = 'Always'): Obj => ({ metadata: { labels: { app } }, spec: { restartPolicy, containers: [{ name: app, image: 'nginx' }] } })
const WORKLOADS: Array<{ count: string, url: string, body: (name: string) => Obj }> = [
  { count: 'count/deployments.apps', url: '/apis/apps/v1/namespaces/q/deployments', body: name => ({ metadata: { name }, spec: { selector: { matchLabels: { app: name } }, template: template(name) } }) },
  { count: 'count/replicasets.apps', url: '/apis/apps/v1/namespaces/q/replicasets', body: name => ({ metadata: { name }, spec: { selector: { matchLabels: { app: name } }, template: template(name) } }) },
  { count: 'count/statefulsets.apps', url: '/apis/apps/v1/namespaces/q/statefulsets', body: name => ({ metadata: { name }, spec: { serviceName: name, selector: { matchLabels: { app: name } }, template: template(name) } }) },
  { count: 'count/daemonsets.apps', url: '/apis/apps/v1/namespaces/q/daemonsets', body: name => ({ metadata: { name }, spec: { selector: { matchLabels: { app: name } }, template: template(name) } }) },
  { count: 'count/jobs.batch', url: '/apis/batch/v1/namespaces/q/jobs', body: name => ({ metadata: { name }, spec: { template: template(name, 'Never') } }) },
  { count: 'count/cronjobs.batch', url: '/apis/batch/v1/namespaces/q/cronjobs', body: name => ({ metadata: { name }, spec: { schedule: '@daily', jobTemplate: { spec: { template: template(name, 'Never') } } } }) },
  { count: 'count/horizontalpodautoscalers.autoscaling', url: '/apis/autoscaling/v2/namespaces/q/horizontalpodautoscalers', body: name => ({ metadata: { name }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, maxReplicas: 3 } }) }
]

describe('quota and limits on workloads', () => {
  const app = suiteApp()
  const request = (method: string, url: string, payload?: Obj) => app().request({ method: method as 'POST', url, ...(payload === undefined ? {} : { payload }) })

  it('charges each workload kind to its count and refuses the one past the limit', async () => {
    assert.equal((await request('POST', '/api/v1/namespaces', { metadata: { name: 'q' } })).statusCode, 201)
    const hard = Object.fromEntries(WORKLOADS.map(w => [w.count, '1']))
    assert.equal((await request('POST', '/api/v1/namespaces/q/resourcequotas', { metadata: { name: 'workloads' }, spec: { hard } })).statusCode, 201)
    // The controller counts what exists before admission charges against the quota.
    await eventually(async () => assert.deepEqual((await request('GET', '/api/v1/namespaces/q/resourcequotas/workloads')).json().status?.used, Object.fromEntries(WORKLOADS.map(w => [w.count, '0']))))
    for (const w of WORKLOADS) {
      const first = await request('POST', w.url, w.body('one'))
      assert.equal(first.statusCode, 201, first.body)
      const second = await request('POST', w.url, w.body('two'))
      assert.equal(second.statusCode, 403, second.body)
      const plural = w.count.slice('count/'.length)
      assert.equal(second.json().message, `${plural} "two" is forbidden: exceeded quota: workloads, requested: ${w.count}=1, used: ${w.count}=1, limited: ${w.count}=1`)
    }
    await eventually(async () => assert.deepEqual((await request('GET', '/api/v1/namespaces/q/resourcequotas/workloads')).json().status?.used, Object.fromEntries(WORKLOADS.map(w => [w.count, '1']))))
  })

  it('does not default pod templates from a LimitRange', async () => {
    assert.equal((await request('POST', '/api/v1/namespaces', { metadata: { name: 'limits' } })).statusCode, 201)
    const range = { metadata: { name: 'defaults' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }] } }
    assert.equal((await request('POST', '/api/v1/namespaces/limits/limitranges', range)).statusCode, 201)
    const created = await request('POST', '/apis/apps/v1/namespaces/limits/deployments', { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template('web') } })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().spec.template.spec.containers[0].resources, undefined)
    const pod = await request('POST', '/api/v1/namespaces/limits/pods', { metadata: { name: 'p' }, spec: template('web').spec })
    assert.deepEqual(pod.json().spec.containers[0].resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } })
  })
})
