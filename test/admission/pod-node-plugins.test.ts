// TaintNodesByCondition (on by default), LimitPodHardAntiAffinityTopology and
// ExtendedResourceToleration (off by default), and
// the chain: the default set is the spec's list, the plugins run in the reference server's order.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { DEFAULT_ENABLED } from '../../admission/index.js'
import { HOSTNAME_LABEL, NODE_TAINTS } from '../../resources/naming.js'

const pods = '/api/v1/namespaces/default/pods'
const antiAffinity = (topologyKey: string) => ({
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey }] }
})

describe('TaintNodesByCondition', () => {
  it('gives a new node the not-ready NoSchedule taint once, and leaves updates alone', async (t) => {
    const { request } = await buildTestApp(t)
    const plain = await request({ method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name: 'n1' } } })
    assert.equal(plain.statusCode, 201, plain.body)
    assert.deepEqual(plain.json().spec.taints, [{ key: NODE_TAINTS.notReady, effect: 'NoSchedule' }])
    const own = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, { key: NODE_TAINTS.notReady, effect: 'NoSchedule' }]
    const tainted = await request({ method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name: 'n2' }, spec: { taints: own } } })
    assert.deepEqual(tainted.json().spec.taints, own)
    const node = plain.json()
    node.spec.taints = []
    const lifted = await request({ method: 'PUT', url: '/api/v1/nodes/n1', payload: node })
    assert.equal(lifted.statusCode, 200, lifted.body)
    assert.deepEqual(lifted.json().spec.taints ?? [], [])
  })
})

describe('LimitPodHardAntiAffinityTopology', () => {
  it('when enabled, allows only the host name as the topology of required anti-affinity', async (t) => {
    const { request } = await buildTestApp(t, { admission: { enable: ['LimitPodHardAntiAffinityTopology'] } })
    const pod = (name: string, affinity: unknown) => request({ method: 'POST', url: pods, payload: { metadata: { name }, spec: { affinity, containers: [{ name: 'a', image: 'nginx:1.27' }] } } })
    assert.equal((await pod('by-host', antiAffinity(HOSTNAME_LABEL))).statusCode, 201)
    const zone = await pod('by-zone', antiAffinity('topology.example.com/zone'))
    assert.equal(zone.statusCode, 403, zone.body)
    assert.equal(zone.json().message, `pods "by-zone" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.example.com/zone but only key ${HOSTNAME_LABEL} is allowed`)
  })

  it('is off by default', async (t) => {
    const { request } = await buildTestApp(t)
    const res = await request({ method: 'POST', url: pods, payload: { metadata: { name: 'by-zone' }, spec: { affinity: antiAffinity('topology.example.com/zone'), containers: [{ name: 'a', image: 'nginx:1.27' }] } } })
    assert.equal(res.statusCode, 201, res.body)
  })
})

describe('ExtendedResourceToleration', () => {
  it('when enabled, tolerates the NoSchedule taint of each extended resource the containers request', async (t) => {
    const { request } = await buildTestApp(t, { admission: { enable: ['ExtendedResourceToleration'] } })
    const gpu = { requests: { 'example.com/gpu': '1', cpu: '1' }, limits: { 'example.com/gpu': '1' } }
    const fpga = { requests: { 'acme.io/fpga': '2' }, limits: { 'acme.io/fpga': '2' } }
    const res = await request({
      method: 'POST',
      url: pods,
      payload: {
        metadata: { name: 'devices' },
        spec: {
          initContainers: [{ name: 'i', image: 'nginx:1.27', resources: fpga }],
          containers: [{ name: 'a', image: 'nginx:1.27', resources: gpu }],
          tolerations: [{ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }]
        }
      }
    })
    assert.equal(res.statusCode, 201, res.body)
    const added = res.json().spec.tolerations.filter((t: { effect?: string }) => t.effect === 'NoSchedule')
    assert.deepEqual(added, [{ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' }, { key: 'acme.io/fpga', operator: 'Exists', effect: 'NoSchedule' }])
    const plain = await request({ method: 'POST', url: pods, payload: { metadata: { name: 'plain' }, spec: { containers: [{ name: 'a', image: 'nginx:1.27', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } })
    assert.deepEqual(plain.json().spec.tolerations.filter((t: { effect?: string }) => t.effect === 'NoSchedule'), [])
  })
})

describe('the admission chain', () => {
  it('has the spec\'s default set, and both admission policy plugins as the reference has them (issue 34)', () => {
    assert.deepEqual([...DEFAULT_ENABLED].sort(), [
      'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'DefaultStorageClass',
      'DefaultTolerationSeconds', 'LimitRanger', 'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'NamespaceLifecycle', 'PersistentVolumeClaimResize',
      'PodSecurity', 'Priority', 'ResourceQuota', 'RuntimeClass', 'ServiceAccount', 'StorageObjectInUseProtection',
      'TaintNodesByCondition', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook'
    ])
  })

  it('runs the pod and node plugins in the reference server\'s order, the off-by-default ones only when enabled', async (t) => {
    const { app } = await buildTestApp(t, { admission: { enable: ['AlwaysPullImages', 'LimitPodHardAntiAffinityTopology', 'ExtendedResourceToleration'] } })
    const mine = ['LimitPodHardAntiAffinityTopology', 'ServiceAccount', 'TaintNodesByCondition', 'AlwaysPullImages', 'Priority', 'DefaultTolerationSeconds', 'ExtendedResourceToleration']
    assert.deepEqual(app.admission.enabled().filter(n => mine.includes(n)), mine)
    const plain = await buildTestApp(t)
    assert.deepEqual(plain.app.admission.enabled().filter(n => mine.includes(n)), ['ServiceAccount', 'TaintNodesByCondition', 'Priority', 'DefaultTolerationSeconds'])
  })
})
