// The endpoint controllers through the API: a Service's Endpoints and EndpointSlices follow its
// pods' addresses and readiness, resolve named target ports in each pod, go with the Service;
// and the `kubernetes` Service's endpoints name this server.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { eventually } from '../helpers/eventually.js'
import { ENDPOINT_SLICES, GROUPS } from '../../resources/naming.js'

type Obj = Record<string, any>
const NS = 'default'
const core = (kind: string, name = '') => `/api/v1/namespaces/${NS}/${kind}${name === '' ? '' : `/${name}`}`
const slicesUrl = (service: string) => `/apis/${GROUPS.discovery}/v1/namespaces/${NS}/endpointslices?labelSelector=${encodeURIComponent(`${ENDPOINT_SLICES.serviceNameLabel}=${service}`)}`

describe('endpoint controllers', () => {
  const app = suiteApp({ advertiseAddress: '192.0.2.10', securePort: 7443 })

  async function ok (method: string, url: string, payload?: unknown, contentType?: string): Promise<Obj> {
    const res = await app().request({ method: method as 'POST', url, payload: payload as Obj, headers: contentType === undefined ? {} : { 'content-type': contentType } })
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.body}`)
    return res.json()
  }
  async function pod (name: string, labels: Obj, ip: string | undefined, ready: boolean, ports: Obj[] = [{ name: 'http', containerPort: 8080 }]): Promise<void> {
    await ok('POST', core('pods'), { metadata: { name, labels }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx', ports }] } })
    await setStatus(name, ip, ready)
  }
  async function setStatus (name: string, ip: string | undefined, ready: boolean): Promise<void> {
    const status: Obj = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] }
    if (ip !== undefined) Object.assign(status, { podIP: ip, podIPs: [{ ip }] })
    await ok('PATCH', `${core('pods', name)}/status`, { status }, 'application/merge-patch+json')
  }
  const endpoints = async (name: string): Promise<Obj> => await ok('GET', core('endpoints', name))
  const slices = async (name: string): Promise<Obj[]> => (await ok('GET', slicesUrl(name))).items

  it('lists ready pods under addresses, others under notReadyAddresses, at the resolved target port', async () => {
    await pod('web-1', { app: 'web' }, '10.1.0.1', true)
    await pod('web-2', { app: 'web' }, '10.1.0.2', false)
    await pod('web-3', { app: 'web' }, undefined, true)
    await pod('other', { app: 'other' }, '10.1.0.9', true)
    const svc = await ok('POST', core('services'), { metadata: { name: 'web', labels: { tier: 'front' } }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } })

    await eventually(async () => {
      const ep = await endpoints('web')
      assert.deepEqual(ep.subsets, [{
        addresses: [{ ip: '10.1.0.1', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: NS, name: 'web-1', uid: ep.subsets[0].addresses[0].targetRef.uid } }],
        notReadyAddresses: [{ ip: '10.1.0.2', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: NS, name: 'web-2', uid: ep.subsets[0].notReadyAddresses[0].targetRef.uid } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }]
      }])
      assert.deepEqual(ep.metadata.labels, { tier: 'front' })
    })
    await eventually(async () => {
      const items = await slices('web')
      assert.equal(items.length, 1)
      const slice = items[0]
      assert.equal(slice.addressType, 'IPv4')
      assert.ok(slice.metadata.name.startsWith('web-'))
      assert.deepEqual(slice.metadata.labels, { tier: 'front', [ENDPOINT_SLICES.serviceNameLabel]: 'web', [ENDPOINT_SLICES.managedByLabel]: ENDPOINT_SLICES.controllerName })
      assert.deepEqual(slice.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }])
      assert.deepEqual(slice.ports, [{ name: 'http', protocol: 'TCP', port: 8080 }])
      assert.deepEqual(slice.endpoints.map((e: Obj) => [e.addresses, e.conditions, e.nodeName, e.targetRef.name]), [
        [['10.1.0.1'], { ready: true, serving: true, terminating: false }, 'node-1', 'web-1'],
        [['10.1.0.2'], { ready: false, serving: false, terminating: false }, 'node-1', 'web-2']
      ])
    })

    // Readiness and addresses follow the pods.
    await setStatus('web-2', '10.1.0.2', true)
    await setStatus('web-3', '10.1.0.3', true)
    await eventually(async () => {
      const ep = await endpoints('web')
      assert.deepEqual(ep.subsets.map((s: Obj) => [s.addresses?.map((a: Obj) => a.ip), s.notReadyAddresses]), [[['10.1.0.1', '10.1.0.2', '10.1.0.3'], undefined]])
      const [slice] = await slices('web')
      assert.deepEqual(slice.endpoints.map((e: Obj) => [e.addresses[0], e.conditions.ready]), [['10.1.0.1', true], ['10.1.0.2', true], ['10.1.0.3', true]])
    })
    await ok('DELETE', core('pods', 'web-1'))
    await eventually(async () => {
      const ep = await endpoints('web')
      assert.deepEqual(ep.subsets[0].addresses.map((a: Obj) => a.ip), ['10.1.0.2', '10.1.0.3'])
      const [slice] = await slices('web')
      assert.deepEqual(slice.endpoints.map((e: Obj) => e.addresses[0]), ['10.1.0.2', '10.1.0.3'])
    })
  })

  it('resolves a named target port in each pod: pods with different ports get separate subsets and slices', async () => {
    await pod('api-1', { app: 'api' }, '10.2.0.1', true, [{ name: 'grpc', containerPort: 9000 }])
    await pod('api-2', { app: 'api' }, '10.2.0.2', true, [{ name: 'grpc', containerPort: 9001 }])
    await pod('api-3', { app: 'api' }, '10.2.0.3', true, [{ name: 'other', containerPort: 9002 }])
    await ok('POST', core('services'), { metadata: { name: 'api' }, spec: { selector: { app: 'api' }, ports: [{ name: 'grpc', port: 90, targetPort: 'grpc' }, { name: 'metrics', port: 91, targetPort: 9100 }] } })
    await eventually(async () => {
      const ep = await endpoints('api')
      assert.deepEqual(ep.subsets.map((s: Obj) => [s.addresses.map((a: Obj) => a.ip), s.ports.map((p: Obj) => `${p.name}:${p.port}`)]), [
        [['10.2.0.1'], ['grpc:9000']],
        [['10.2.0.1', '10.2.0.2', '10.2.0.3'], ['metrics:9100']],
        [['10.2.0.2'], ['grpc:9001']]
      ])
      const items = await slices('api')
      const summary = items.map(s => [s.endpoints.map((e: Obj) => e.addresses[0]).join(','), s.ports.map((p: Obj) => `${p.name}:${p.port}`).join(',')]).sort()
      assert.deepEqual(summary, [['10.2.0.1', 'grpc:9000,metrics:9100'], ['10.2.0.2', 'grpc:9001,metrics:9100'], ['10.2.0.3', 'metrics:9100']])
    })
  })

  it('keeps an empty slice and empty Endpoints for a Service without pods, and deletes them with the Service', async () => {
    await ok('POST', core('services'), { metadata: { name: 'lonely' }, spec: { selector: { app: 'nobody' }, ports: [{ port: 80 }] } })
    const [slice] = await eventually(async () => {
      const items = await slices('lonely')
      assert.equal(items.length, 1)
      assert.deepEqual(items[0].endpoints, [])
      assert.equal((await endpoints('lonely')).subsets, undefined)
      return items
    })
    assert.equal(slice.ports, undefined)
    await ok('DELETE', core('services', 'lonely'))
    await eventually(async () => {
      assert.equal((await app().request({ method: 'GET', url: core('endpoints', 'lonely') })).statusCode, 404)
      assert.deepEqual(await slices('lonely'), [])
    }, 20_000)
  })

  it('writes no endpoints for a Service without a selector', async () => {
    await ok('POST', core('services'), { metadata: { name: 'manual' }, spec: { ports: [{ port: 80 }] } })
    await ok('POST', core('endpoints'), { metadata: { name: 'manual' }, subsets: [{ addresses: [{ ip: '192.0.2.44' }], ports: [{ port: 80 }] }] })
    await new Promise(resolve => setTimeout(resolve, 500))
    assert.deepEqual((await endpoints('manual')).subsets, [{ addresses: [{ ip: '192.0.2.44' }], ports: [{ port: 80, protocol: 'TCP' }] }])
    assert.deepEqual(await slices('manual'), [])
  })

  it('names this server\'s advertised address and port in the kubernetes Service\'s Endpoints and EndpointSlice', async () => {
    const ep = await endpoints('kubernetes')
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ name: 'https', port: 7443, protocol: 'TCP' }] }])
    assert.equal(ep.metadata.labels[ENDPOINT_SLICES.skipMirrorLabel], 'true')
    const slice = await ok('GET', `/apis/${GROUPS.discovery}/v1/namespaces/${NS}/endpointslices/kubernetes`)
    assert.equal(slice.addressType, 'IPv4')
    assert.deepEqual(slice.endpoints, [{ addresses: ['192.0.2.10'], conditions: { ready: true } }])
    assert.deepEqual(slice.ports, [{ name: 'https', port: 7443, protocol: 'TCP' }])
    assert.equal(slice.metadata.labels[ENDPOINT_SLICES.serviceNameLabel], 'kubernetes')
  })
})
