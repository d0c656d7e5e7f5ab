// Deprecated content is accepted with a `Warning: 299` header in the reference server's words
// (its pkg/api/*/warnings and util WarningsOnCreate/WarningsOnUpdate), on create and update of
// the main resource, never on a status write and never for a request that fails validation.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { suiteApp } from './suite.js'

const pvs = '/api/v1/persistentvolumes'
const pvcs = '/api/v1/namespaces/default/persistentvolumeclaims'
const pods = '/api/v1/namespaces/default/pods'
const nodes = '/api/v1/nodes'
const services = '/api/v1/namespaces/default/services'
const storageClasses = '/apis/storage.svc.io/v1/storageclasses'
const capacities = '/apis/storage.svc.io/v1/namespaces/default/csistoragecapacities'
const runtimeClasses = '/apis/node.svc.io/v1/runtimeclasses'
const mergePatch = { 'content-type': 'application/merge-patch+json' }

/** The messages of a response's Warning headers. */
function warnings (res: LightMyRequestResponse): string[] {
  const h = res.headers.warning
  const values = h === undefined ? [] : Array.isArray(h) ? h : [String(h)]
  return values.map(v => JSON.parse(Buffer.from(v, 'latin1').toString('utf8').replace(/^299 - /, '')) as string)
}

const pvSpec = (extra: Record<string, unknown>) => ({ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...extra })
const pod = (spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
  metadata: annotations === undefined ? {} : { annotations },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec }
})
const volume = (source: Record<string, unknown>) => pod({ volumes: [{ name: 'v', ...source }] })
const expr = (key: string) => ({ key, operator: 'In', values: ['x'] })

interface Case { name: string, url: string, body: Record<string, any>, want: string[] }

const cases: Case[] = [
  {
    name: 'a volume with the Recycle reclaim policy',
    url: pvs,
    body: { spec: pvSpec({ persistentVolumeReclaimPolicy: 'Recycle', nfs: { server: 'nfs.example.com', path: '/data' } }) },
    want: ['spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.']
  },
  {
    name: 'a volume with deprecated annotations, a deprecated plugin and a beta node label',
    url: pvs,
    body: {
      metadata: { annotations: { 'volume.beta.svc.io/storage-class': 'fast', 'volume.beta.svc.io/mount-options': 'ro' } },
      spec: pvSpec({
        persistentVolumeReclaimPolicy: 'Retain',
        glusterfs: { endpoints: 'gluster', path: 'vol' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [expr('kubernetes.io/hostname'), expr('beta.svc.io/os')] }] } }
      })
    },
    want: [
      'metadata.annotations[volume.beta.svc.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      'metadata.annotations[volume.beta.svc.io/mount-options]: deprecated since v1.31; use "mountOptions" attribute instead',
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[1].key: beta.svc.io/os is deprecated since v1.14; use "svc.io/os" instead',
      'spec.glusterfs: deprecated in v1.25, non-functional in v1.26+'
    ]
  },
  { name: 'a cephfs volume', url: pvs, body: { spec: pvSpec({ cephfs: { monitors: ['m:6789'] } }) }, want: ['spec.cephfs: deprecated in v1.28, non-functional in v1.31+'] },
  { name: 'a storageos volume, named as the reference names it', url: pvs, body: { spec: pvSpec({ storageos: { volumeName: 'v' } }) }, want: ['spec.storageOS: deprecated in v1.22, non-functional in v1.25+'] },
  {
    name: 'a claim with the beta class annotation and a fractional request',
    url: pvcs,
    body: { metadata: { annotations: { 'volume.beta.svc.io/storage-class': 'fast' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1500m' } } } },
    want: [
      'metadata.annotations[volume.beta.svc.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      'spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer'
    ]
  },
  { name: 'a gitRepo volume', url: pods, body: volume({ gitRepo: { repository: 'https://example.com/r.git' } }), want: ['spec.volumes[0].gitRepo: deprecated in v1.11'] },
  { name: 'an rbd volume', url: pods, body: volume({ rbd: { monitors: ['m'], image: 'i' } }), want: ['spec.volumes[0].rbd: deprecated in v1.28, non-functional in v1.31+'] },
  { name: 'a flocker volume', url: pods, body: volume({ flocker: { datasetName: 'd' } }), want: ['spec.volumes[0].flocker: deprecated in v1.22, non-functional in v1.25+'] },
  { name: 'a quobyte volume', url: pods, body: volume({ quobyte: { registry: 'r:7861', volume: 'v' } }), want: ['spec.volumes[0].quobyte: deprecated in v1.22, non-functional in v1.25+'] },
  { name: 'a scaleIO volume', url: pods, body: volume({ scaleIO: { gateway: 'g', system: 's', secretRef: { name: 's' } } }), want: ['spec.volumes[0].scaleIO: deprecated in v1.16, non-functional in v1.22+'] },
  { name: 'a photonPersistentDisk volume', url: pods, body: volume({ photonPersistentDisk: { pdID: 'p' } }), want: ['spec.volumes[0].photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+'] },
  {
    name: 'deprecated node labels in a pod\'s selector, affinity and spread constraints, in either spelling',
    url: pods,
    body: pod({
      nodeSelector: { 'beta.kubernetes.io/arch': 'amd64' },
      affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [expr('failure-domain.beta.svc.io/zone')] } }] } },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'node-role.svc.io/master', whenUnsatisfiable: 'DoNotSchedule', labelSelector: {} }]
    }),
    want: [
      'spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead',
      'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key: failure-domain.beta.svc.io/zone is deprecated since v1.17; use "topology.svc.io/zone" instead',
      'spec.topologySpreadConstraints[0].topologyKey: node-role.svc.io/master is use "node-role.svc.io/control-plane" instead'
    ]
  },
  {
    name: 'non-functional pod annotations',
    url: pods,
    body: pod({}, { 'scheduler.alpha.svc.io/critical-pod': '', 'seccomp.security.alpha.svc.io/pod': 'runtime/default', 'container.seccomp.security.alpha.svc.io/c': 'runtime/default' }),
    want: [
      'metadata.annotations[scheduler.alpha.svc.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
      'metadata.annotations[seccomp.security.alpha.svc.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead',
      'metadata.annotations[container.seccomp.security.alpha.svc.io/c]: non-functional in v1.27+; use the "seccompProfile" field instead'
    ]
  },
  {
    name: 'a storage class whose allowed topologies name a beta label',
    url: storageClasses,
    body: { provisioner: 'example.com/p', allowedTopologies: [{ matchLabelExpressions: [{ key: 'failure-domain.beta.kubernetes.io/region', values: ['r'] }] }] },
    want: ['allowedTopologies[0].matchLabelExpressions[0]: deprecated since v1.17; use "topology.kubernetes.io/region" instead']
  },
  {
    name: 'a capacity whose node topology names beta labels',
    url: capacities,
    body: { storageClassName: 'fast', nodeTopology: { matchLabels: { 'beta.svc.io/instance-type': 'big' }, matchExpressions: [expr('beta.svc.io/arch')] } },
    want: [
      'nodeTopology.matchExpressions[0]: beta.svc.io/arch is deprecated since v1.14; use "svc.io/arch" instead',
      'nodeTopology.matchLabels.beta.svc.io/instance-type: deprecated since v1.17; use "node.svc.io/instance-type" instead'
    ]
  },
  {
    name: 'a runtime class scheduling onto a beta label',
    url: runtimeClasses,
    body: { handler: 'runsc', scheduling: { nodeSelector: { 'beta.svc.io/os': 'linux' } } },
    want: ['scheduling.nodeSelector: deprecated since v1.14; use "svc.io/os" instead']
  },
  {
    name: 'a node with an external ID and a config source',
    url: nodes,
    body: { spec: { externalID: 'i-123', configSource: { configMap: { name: 'c', namespace: 'svc-system', kubeletConfigKey: 'k' } } } },
    want: ['spec.configSource: the feature is removed', 'spec.externalID: this field is deprecated, and is unused by Kubernetes']
  },
  {
    name: 'a service with the old topology annotation',
    url: services,
    body: { metadata: { annotations: { 'service.svc.io/topology-aware-hints': 'auto' } }, spec: { ports: [{ port: 80 }] } },
    want: ['annotation service.svc.io/topology-aware-hints is deprecated, please use service.svc.io/topology-mode instead']
  }
]

describe('deprecated content', () => {
  const app = suiteApp()

  cases.forEach((c, i) => {
    it(`warns of ${c.name} on create`, async () => {
      const body = { ...c.body, metadata: { ...(c.body.metadata ?? {}), name: `w${i}` } }
      const res = await app().request({ method: 'POST', url: c.url, payload: body })
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(warnings(res), c.want)
    })
  })

  it('warns on an update of the main resource, not on a status write nor for content that is not deprecated', async () => {
    const plain = await app().request({ method: 'POST', url: pvs, payload: { metadata: { name: 'plain' }, spec: pvSpec({ nfs: { server: 's', path: '/p' } }) } })
    assert.equal(plain.statusCode, 201, plain.body)
    assert.deepEqual(warnings(plain), [])
    const recycled = await app().request({ method: 'PATCH', url: `${pvs}/plain`, headers: mergePatch, payload: { spec: { persistentVolumeReclaimPolicy: 'Recycle' } } })
    assert.equal(recycled.statusCode, 200, recycled.body)
    assert.deepEqual(warnings(recycled), ['spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.'])
    const status = await app().request({ method: 'PATCH', url: `${pvs}/plain/status`, headers: mergePatch, payload: { status: { phase: 'Available' } } })
    assert.equal(status.statusCode, 200, status.body)
    assert.deepEqual(warnings(status), [])
  })

  it('does not warn of a request that fails validation', async () => {
    const res = await app().request({ method: 'POST', url: pvs, payload: { metadata: { name: 'bad' }, spec: { persistentVolumeReclaimPolicy: 'Recycle', nfs: { server: 's', path: '/p' } } } })
    assert.equal(res.statusCode, 422, res.body)
    assert.deepEqual(warnings(res), [])
  })
})
