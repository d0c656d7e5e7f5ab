// Pods and nodes: the fields later admission plugins need, their rules, status, selectors, columns.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const pods = '/api/v1/namespaces/default/pods'
const nodes = '/api/v1/nodes'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }
const container = (extra: Record<string, unknown> = {}) => ({ name: 'app', image: 'nginx:1.27', ...extra })

interface Case { name: string, spec: Record<string, unknown>, field?: string, reason?: string }

const cases: Case[] = [
  { name: 'a pod with the admission fields', spec: { containers: [container({ env: [{ name: 'A', value: '1' }], resources: { limits: { cpu: '500m', memory: '128Mi' } } })], serviceAccountName: 'builder', automountServiceAccountToken: false, nodeName: 'node-1', priorityClassName: 'high', tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }], securityContext: { runAsNonRoot: true, fsGroup: 2000 }, overhead: { cpu: '250m' } } },
  { name: 'a pod without containers', spec: { containers: [] }, field: 'spec.containers', reason: 'FieldValueRequired' },
  { name: 'a container without image', spec: { containers: [{ name: 'app' }] }, field: 'spec.containers[0].image', reason: 'FieldValueRequired' },
  { name: 'duplicate container names', spec: { containers: [container(), container()] }, field: 'spec.containers[1].name', reason: 'FieldValueDuplicate' },
  { name: 'requests above limits', spec: { containers: [container({ resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } })] }, field: 'spec.containers[0].resources.requests[cpu]' },
  { name: 'an unknown restart policy', spec: { containers: [container()], restartPolicy: 'Sometimes' }, field: 'spec.restartPolicy', reason: 'FieldValueNotSupported' },
  { name: 'a toleration with an unknown effect', spec: { containers: [container()], tolerations: [{ key: 'k', operator: 'Exists', effect: 'Evict' }] }, field: 'spec.tolerations[0].effect', reason: 'FieldValueNotSupported' },
  { name: 'a bad service account name', spec: { containers: [container()], serviceAccountName: 'Bad_Name' }, field: 'spec.serviceAccountName' },
  { name: 'a negative overhead', spec: { containers: [container()], overhead: { cpu: '-1' } }, field: 'spec.overhead[cpu]' },
  { name: 'a runtime class name that is not a DNS subdomain', spec: { containers: [container()], runtimeClassName: 'Bad_Class' }, field: 'spec.runtimeClassName' }
]

describe('pods', () => {
  // The kind's own rules: accounts and classes these pods name need not exist, nor the runtime
  // class an overhead comes from (test/admission covers those).
  const app = suiteApp({ admission: { disable: ['ServiceAccount', 'Priority', 'RuntimeClass'] } })
  let n = 0
  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await app().request({ method: 'POST', url: pods, payload: { metadata: { name: `p${++n}` }, spec: c.spec } })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason)
    })
  }

  it('defaults a pod as the reference server does', async () => {
    const res = await app().request({ method: 'POST', url: pods, payload: { metadata: { name: 'defaults' }, spec: { containers: [container({ image: 'nginx', resources: { limits: { memory: '1Gi', cpu: '1' } } })], serviceAccount: 'sa' } } })
    const body = res.json()
    assert.equal(body.spec.restartPolicy, 'Always')
    assert.equal(body.spec.dnsPolicy, 'ClusterFirst')
    assert.equal(body.spec.terminationGracePeriodSeconds, 30)
    assert.equal(body.spec.schedulerName, 'default-scheduler')
    assert.equal(body.spec.serviceAccountName, 'sa')
    assert.equal(body.spec.containers[0].imagePullPolicy, 'Always')
    assert.deepEqual(body.spec.containers[0].resources.requests, { memory: '1Gi', cpu: '1' })
    assert.deepEqual(body.status, { phase: 'Pending', qosClass: 'Guaranteed' })
  })

  it('types probes, lifecycle hooks and affinity, with the probe defaults', async () => {
    const spec = {
      containers: [container({ livenessProbe: { httpGet: { port: 'http' } }, lifecycle: { preStop: { sleep: { seconds: 5 } } } })],
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }]
    }
    const res = await app().request({ method: 'POST', url: pods, payload: { metadata: { name: 'probed' }, spec } })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().spec.containers[0].livenessProbe, { httpGet: { port: 'http', path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 })
    const strict = await app().request({ method: 'POST', url: `${pods}?fieldValidation=Strict`, payload: { metadata: { name: 'typo' }, spec: { containers: [container({ livenessProbe: { httpGet: { port: 80, pth: '/' } } })] } } })
    assert.equal(strict.statusCode, 400)
    assert.equal(strict.json().message, 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].livenessProbe.httpGet.pth"')
  })

  it('lets a running pod change only images, deadlines and added tolerations', async () => {
    await app().request({ method: 'POST', url: pods, payload: { metadata: { name: 'running' }, spec: { containers: [container()] } } })
    const patch = (spec: unknown) => app().request({ method: 'PATCH', url: `${pods}/running`, headers: mergePatch, payload: JSON.stringify({ spec }) })
    assert.equal((await patch({ activeDeadlineSeconds: 60, tolerations: [{ key: 'a', operator: 'Exists' }] })).statusCode, 200)
    assertInvalid(await patch({ restartPolicy: 'Never' }), 'spec', 'FieldValueForbidden')
  })

  it('changes status only through /status, selects by field and shows kubectl\'s columns', async () => {
    await app().request({ method: 'POST', url: pods, payload: { metadata: { name: 'web' }, spec: { containers: [container()], nodeName: 'node-9' } } })
    const status = await app().request({ method: 'PATCH', url: `${pods}/web/status`, headers: mergePatch, payload: JSON.stringify({ status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [{ name: 'app', ready: true, restartCount: 2, image: 'nginx:1.27', imageID: '', state: { running: {} } }] } }) })
    assert.equal(status.statusCode, 200, status.body)
    for (const selector of ['status.phase=Running', 'spec.nodeName=node-9', 'status.podIP=10.0.0.5', 'spec.restartPolicy=Always,spec.nodeName=node-9', 'spec.schedulerName=default-scheduler,status.phase!=Pending']) {
      const res = await app().request({ method: 'GET', url: `${pods}?fieldSelector=${encodeURIComponent(selector)}` })
      assert.deepEqual(res.json().items.map((p: any) => p.metadata.name), ['web'], selector)
    }
    const table = await app().request({ method: 'GET', url: `${pods}/web`, headers: TABLE })
    assert.deepEqual(table.json().columnDefinitions.map((c: any) => c.name), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates'])
    const cells = table.json().rows[0].cells
    assert.deepEqual([...cells.slice(0, 4), ...cells.slice(5, 7)], ['web', '1/1', 'Running', '2', '10.0.0.5', 'node-9'])
  })

  it('answers delete with the pod', async () => {
    const res = await app().request({ method: 'DELETE', url: `${pods}/web` })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().kind, 'Pod')
  })
})

describe('nodes', () => {
  const app = suiteApp()
  const node = (name: string, extra: Record<string, unknown> = {}) => ({
    metadata: { name, labels: { 'node-role.svc.io/control-plane': '' } },
    spec: { taints: [{ key: 'node-role.svc.io/control-plane', effect: 'NoSchedule' }], ...extra },
    status: { capacity: { cpu: '4', memory: '16Gi' }, conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1', osImage: 'Debian', containerRuntimeVersion: 'containerd://1.7', kubeletVersion: 'v1.33.0', operatingSystem: 'linux', architecture: 'amd64' } }
  })

  it('keeps the status its agent registers with and fills allocatable', async () => {
    const res = await app().request({ method: 'POST', url: nodes, payload: node('node-1') })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().status.allocatable, { cpu: '4', memory: '16Gi' })
  })

  it('rejects a taint without effect and duplicate taints', async () => {
    assertInvalid(await app().request({ method: 'POST', url: nodes, payload: node('node-2', { taints: [{ key: 'k' }] }) }), 'spec.taints[0].effect', 'FieldValueRequired')
    assertInvalid(await app().request({ method: 'POST', url: nodes, payload: node('node-3', { taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoSchedule' }] }) }), 'spec.taints[1]', 'FieldValueDuplicate')
  })

  it('selects by spec.unschedulable and shows status, roles and version', async () => {
    await app().request({ method: 'PATCH', url: `${nodes}/node-1`, headers: mergePatch, payload: JSON.stringify({ spec: { unschedulable: true } }) })
    const res = await app().request({ method: 'GET', url: `${nodes}?fieldSelector=spec.unschedulable%3Dtrue` })
    assert.deepEqual(res.json().items.map((n: any) => n.metadata.name), ['node-1'])
    const table = await app().request({ method: 'GET', url: `${nodes}/node-1`, headers: TABLE })
    const cells = table.json().rows[0].cells
    assert.deepEqual([...cells.slice(0, 3), cells[4]], ['node-1', 'Ready,SchedulingDisabled', 'control-plane', 'v1.33.0'])
    const del = await app().request({ method: 'DELETE', url: `${nodes}/node-1` })
    assert.equal(del.json().kind, 'Status')
  })
})
