// Service: defaults, validation, cluster IP and node port allocation through the API (the
// allocator itself is test/storage/value-pools.test.ts), dry run, type changes, columns.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const url = '/api/v1/namespaces/default/services'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

type Obj = Record<string, any>
interface Case { name: string, spec: Obj, field?: string, reason?: string, message?: string, expect?: (svc: Obj) => void }

const port = (extra: Obj = {}) => ({ port: 80, ...extra })

const cases: Case[] = [
  {
    name: 'a bare ClusterIP service, defaulted',
    spec: { ports: [port()], selector: { app: 'web' } },
    expect (svc) {
      assert.equal(svc.spec.type, 'ClusterIP')
      assert.equal(svc.spec.sessionAffinity, 'None')
      assert.equal(svc.spec.internalTrafficPolicy, 'Cluster')
      assert.equal(svc.spec.ipFamilyPolicy, 'SingleStack')
      assert.deepEqual(svc.spec.ipFamilies, ['IPv4'])
      assert.deepEqual(svc.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }])
      assert.equal(svc.spec.externalTrafficPolicy, undefined)
      assert.match(svc.spec.clusterIP, /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/)
      assert.deepEqual(svc.spec.clusterIPs, [svc.spec.clusterIP])
      assert.deepEqual(svc.status, { loadBalancer: {} })
    }
  },
  {
    name: 'a NodePort service: node ports and the external traffic policy',
    spec: { type: 'NodePort', ports: [port({ name: 'http', targetPort: 'web' }), port({ name: 'dns', port: 53, protocol: 'UDP' })] },
    expect (svc) {
      assert.equal(svc.spec.externalTrafficPolicy, 'Cluster')
      for (const p of svc.spec.ports) assert.ok(p.nodePort >= 30000 && p.nodePort <= 32767, String(p.nodePort))
      assert.notEqual(svc.spec.ports[0].nodePort, svc.spec.ports[1].nodePort)
      assert.equal(svc.spec.ports[0].targetPort, 'web')
    }
  },
  {
    name: 'one node port for the same port over TCP and UDP',
    spec: { type: 'NodePort', ports: [port({ name: 'tcp', port: 53 }), port({ name: 'udp', port: 53, protocol: 'UDP' })] },
    expect: (svc) => assert.equal(svc.spec.ports[0].nodePort, svc.spec.ports[1].nodePort)
  },
  {
    name: 'a LoadBalancer service with externalTrafficPolicy Local: a health check node port',
    spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [port()] },
    expect (svc) {
      assert.equal(svc.spec.allocateLoadBalancerNodePorts, true)
      assert.ok(svc.spec.healthCheckNodePort >= 30000)
      assert.notEqual(svc.spec.healthCheckNodePort, svc.spec.ports[0].nodePort)
    }
  },
  {
    name: 'a LoadBalancer without node ports',
    spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [port()] },
    expect: (svc) => assert.equal(svc.spec.ports[0].nodePort, undefined)
  },
  {
    name: 'a headless service',
    spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [port()] },
    expect (svc) {
      assert.deepEqual(svc.spec.clusterIPs, ['None'])
      assert.deepEqual(svc.spec.ipFamilies, ['IPv4'])
    }
  },
  {
    name: 'a headless service without selector or ports: dual-stack by default',
    spec: { clusterIP: 'None' },
    expect (svc) {
      assert.equal(svc.spec.ipFamilyPolicy, 'RequireDualStack')
      assert.deepEqual(svc.spec.ipFamilies, ['IPv4', 'IPv6'])
    }
  },
  {
    name: 'an ExternalName service: no cluster IP, no families',
    spec: { type: 'ExternalName', externalName: 'db.example.com' },
    expect (svc) {
      assert.equal(svc.spec.clusterIP, undefined)
      assert.equal(svc.spec.ipFamilies, undefined)
      assert.equal(svc.spec.internalTrafficPolicy, undefined)
    }
  },
  {
    name: 'session affinity ClientIP: the default timeout',
    spec: { sessionAffinity: 'ClientIP', ports: [port()] },
    expect: (svc) => assert.deepEqual(svc.spec.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } })
  },
  { name: 'no ports', spec: { selector: { a: 'b' } }, field: 'spec.ports', reason: 'FieldValueRequired' },
  { name: 'two ports, one unnamed', spec: { ports: [port({ name: 'a' }), port({ port: 81 })] }, field: 'spec.ports[1].name', reason: 'FieldValueRequired' },
  { name: 'two ports of one name', spec: { ports: [port({ name: 'a' }), port({ name: 'a', port: 81 })] }, field: 'spec.ports[1].name', reason: 'FieldValueDuplicate' },
  { name: 'port 0', spec: { ports: [port({ port: 0 })] }, field: 'spec.ports[0].port', message: 'must be between 1 and 65535, inclusive' },
  { name: 'port 65536', spec: { ports: [port({ port: 65536 })] }, field: 'spec.ports[0].port' },
  { name: 'an unknown protocol', spec: { ports: [port({ protocol: 'ICMP' })] }, field: 'spec.ports[0].protocol', reason: 'FieldValueNotSupported' },
  { name: 'a target port name with capitals', spec: { ports: [port({ targetPort: 'Web' })] }, field: 'spec.ports[0].targetPort' },
  { name: 'the same port and protocol twice', spec: { ports: [port({ name: 'a' }), port({ name: 'b' })] }, field: 'spec.ports[1]', reason: 'FieldValueDuplicate' },
  { name: 'a node port on a ClusterIP service', spec: { ports: [port({ nodePort: 30080 })] }, field: 'spec.ports[0].nodePort', reason: 'FieldValueForbidden', message: "may not be used when `type` is 'ClusterIP'" },
  { name: 'an unknown type', spec: { type: 'Magic', ports: [port()] }, field: 'spec.type', reason: 'FieldValueNotSupported' },
  { name: 'an ExternalName without externalName', spec: { type: 'ExternalName' }, field: 'spec.externalName', reason: 'FieldValueRequired' },
  { name: 'an ExternalName with a cluster IP', spec: { type: 'ExternalName', externalName: 'a.example.com', clusterIP: '10.96.0.50' }, field: 'spec.clusterIPs', reason: 'FieldValueForbidden' },
  { name: 'a headless NodePort service', spec: { type: 'NodePort', clusterIP: 'None', ports: [port()] }, field: 'spec.clusterIPs[0]', message: "may not be set to 'None' for NodePort services" },
  { name: 'externalTrafficPolicy on a ClusterIP service', spec: { externalTrafficPolicy: 'Local', ports: [port()] }, field: 'spec.externalTrafficPolicy', message: 'may only be set for externally-accessible services' },
  { name: 'an unknown session affinity', spec: { sessionAffinity: 'Sticky', ports: [port()] }, field: 'spec.sessionAffinity', reason: 'FieldValueNotSupported' },
  { name: 'a ClientIP timeout over a day', spec: { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } }, ports: [port()] }, field: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds' },
  { name: 'a malformed cluster IP', spec: { clusterIP: '10.96.0.300', ports: [port()] }, field: 'spec.clusterIPs[0]', message: 'must be a valid IP address' },
  { name: 'clusterIP and clusterIPs that disagree', spec: { clusterIP: '10.96.0.40', clusterIPs: ['10.96.0.41'], ports: [port()] }, field: 'spec.clusterIPs', message: 'first value must match `clusterIP`' },
  { name: 'dual stack on a single-stack cluster', spec: { ipFamilyPolicy: 'RequireDualStack', ports: [port()] }, field: 'spec.ipFamilyPolicy', message: 'this cluster is not configured for dual-stack services' },
  { name: 'an IPv6 family on an IPv4 cluster', spec: { ipFamilies: ['IPv6'], ports: [port()] }, field: 'spec.ipFamilies[0]', message: 'not configured on this cluster' },
  { name: 'a cluster IP outside the range', spec: { clusterIP: '192.168.0.10', ports: [port()] }, field: 'spec.clusterIPs', message: 'failed to allocate IP 192.168.0.10: the provided IP (192.168.0.10) is not in the valid range. The range of valid IPs is 10.96.0.0/12' },
  { name: 'a node port outside the range', spec: { type: 'NodePort', ports: [port({ nodePort: 8080 })] }, field: 'spec.ports[0].nodePort', message: 'provided port is not in the valid range. The range of valid ports is 30000-32767' },
  { name: 'a name that is no DNS-1035 label', spec: { ports: [port()] }, field: 'metadata.name' },
  { name: 'a malformed external IP', spec: { externalIPs: ['1.2.3'], ports: [port()] }, field: 'spec.externalIPs[0]' }
]

describe('services', () => {
  const app = suiteApp()
  let n = 0

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const name = c.field === 'metadata.name' ? '1-svc' : `svc-${++n}`
      const res = await app().request({ method: 'POST', url, payload: { metadata: { name }, spec: c.spec } })
      if (c.field !== undefined) return assertInvalid(res, c.field, c.reason, c.message)
      assert.equal(res.statusCode, 201, res.body)
      c.expect?.(res.json())
    })
  }

  // ValidateService's source ranges: each entry a CIDR (space-padding tolerated), the annotation
  // read only when the field is empty, both only on LoadBalancers; paths as the reference spells them.
  const CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'
  const ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges'
  const ANNOTATION_PATH = `metadata.annotations[${ANNOTATION}]`
  const LB_ONLY = "Forbidden: may only be used when `type` is 'LoadBalancer'"
  const ranges: Array<{ name: string, spec: Obj, annotations?: Obj, causes: Array<[string, string, string]> }> = [
    {
      name: 'source ranges that are not CIDRs',
      spec: { type: 'LoadBalancer', ports: [port()], loadBalancerSourceRanges: ['10.0.0.0/8', 'nope', ' 192.168.0.0/16 ', '10.0.0.1', '10.0.0.0/33', 'fd00::/129'] },
      causes: [
        ['FieldValueInvalid', 'spec.LoadBalancerSourceRanges[1]', `Invalid value: "nope": ${CIDR}`],
        ['FieldValueInvalid', 'spec.LoadBalancerSourceRanges[3]', `Invalid value: "10.0.0.1": ${CIDR}`],
        ['FieldValueInvalid', 'spec.LoadBalancerSourceRanges[4]', `Invalid value: "10.0.0.0/33": ${CIDR}`],
        ['FieldValueInvalid', 'spec.LoadBalancerSourceRanges[5]', `Invalid value: "fd00::/129": ${CIDR}`]
      ]
    },
    { name: 'source ranges in the forms the reference parses loosely', spec: { type: 'LoadBalancer', ports: [port()], loadBalancerSourceRanges: ['010.0.0.0/8', '10.1.2.3/024', 'fd00::/64', '::ffff:10.0.0.0/104'] }, causes: [] },
    { name: 'source ranges on a ClusterIP service', spec: { ports: [port()], loadBalancerSourceRanges: ['10.0.0.0/8'] }, causes: [['FieldValueForbidden', 'spec.LoadBalancerSourceRanges', LB_ONLY]] },
    { name: 'an annotation with a range that is not a CIDR', spec: { type: 'LoadBalancer', ports: [port()] }, annotations: { [ANNOTATION]: ' 10.0.0.0/8, bad ' }, causes: [['FieldValueInvalid', ANNOTATION_PATH, `Invalid value: "bad": ${CIDR}`]] },
    { name: 'an annotation on a ClusterIP service', spec: { ports: [port()] }, annotations: { [ANNOTATION]: '10.0.0.0/8' }, causes: [['FieldValueForbidden', ANNOTATION_PATH, LB_ONLY]] },
    { name: 'an annotation the field overrides', spec: { type: 'LoadBalancer', ports: [port()], loadBalancerSourceRanges: ['10.0.0.0/8'] }, annotations: { [ANNOTATION]: 'bad' }, causes: [] }
  ]
  for (const c of ranges) {
    it(`${c.causes.length === 0 ? 'accepts' : 'rejects'} ${c.name}, in the reference's words`, async () => {
      const res = await app().request({ method: 'POST', url, payload: { metadata: { name: `svc-${++n}`, annotations: c.annotations }, spec: c.spec } })
      if (c.causes.length === 0) { assert.equal(res.statusCode, 201, res.body); return }
      assert.equal(res.statusCode, 422, res.body)
      assert.deepEqual(res.json().details.causes, c.causes.map(([reason, field, message]) => ({ reason, message, field })))
    })
  }

  it('honours a requested cluster IP and refuses it to a second service', async () => {
    const first = await app().request({ method: 'POST', url, payload: { metadata: { name: 'pinned' }, spec: { clusterIP: '10.96.100.100', ports: [port()] } } })
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.json().spec.clusterIP, '10.96.100.100')
    const second = await app().request({ method: 'POST', url, payload: { metadata: { name: 'pinned-too' }, spec: { clusterIP: '10.96.100.100', ports: [port()] } } })
    assertInvalid(second, 'spec.clusterIPs', 'FieldValueInvalid', 'failed to allocate IP 10.96.100.100: provided IP is already allocated')
    assert.match(second.json().message, /^Service "pinned-too" is invalid: spec\.clusterIPs: Invalid value: .*provided IP is already allocated$/)
  })

  it('honours a requested node port and refuses it to a second service', async () => {
    const first = await app().request({ method: 'POST', url, payload: { metadata: { name: 'np-a' }, spec: { type: 'NodePort', ports: [port({ nodePort: 30010 })] } } })
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.json().spec.ports[0].nodePort, 30010)
    const second = await app().request({ method: 'POST', url, payload: { metadata: { name: 'np-b' }, spec: { type: 'NodePort', ports: [port({ nodePort: 30010 })] } } })
    assertInvalid(second, 'spec.ports[0].nodePort', 'FieldValueInvalid', 'provided port is already allocated')
  })

  it('frees the addresses of a deleted service, and of a rejected one', async () => {
    const spec = { type: 'NodePort', clusterIP: '10.96.200.1', ports: [port({ nodePort: 30011 })] }
    assert.equal((await app().request({ method: 'POST', url, payload: { metadata: { name: 'gone' }, spec } })).statusCode, 201)
    assert.equal((await app().request({ method: 'DELETE', url: `${url}/gone` })).statusCode, 200)
    assert.equal((await app().request({ method: 'POST', url, payload: { metadata: { name: 'again' }, spec } })).statusCode, 201)
    // Allocated, then refused by validation: nothing stays claimed.
    const bad = { type: 'NodePort', clusterIP: '10.96.200.2', ports: [port({ nodePort: 30012, protocol: 'ICMP' })] }
    assertInvalid(await app().request({ method: 'POST', url, payload: { metadata: { name: 'bad' }, spec: bad } }), 'spec.ports[0].protocol')
    const ok = { type: 'NodePort', clusterIP: '10.96.200.2', ports: [port({ nodePort: 30012 })] }
    assert.equal((await app().request({ method: 'POST', url, payload: { metadata: { name: 'good' }, spec: ok } })).statusCode, 201)
  })

  it('allocates nothing under dry run, yet checks a requested address', async () => {
    const dry = await app().request({ method: 'POST', url: `${url}?dryRun=All`, payload: { metadata: { name: 'dry' }, spec: { clusterIP: '10.96.150.1', type: 'NodePort', ports: [port({ nodePort: 30050 })] } } })
    assert.equal(dry.statusCode, 201, dry.body)
    assert.equal(dry.json().spec.clusterIP, '10.96.150.1')
    const auto = await app().request({ method: 'POST', url: `${url}?dryRun=All`, payload: { metadata: { name: 'dry-auto' }, spec: { ports: [port()] } } })
    assert.equal(auto.statusCode, 201, auto.body)
    assert.ok(auto.json().spec.clusterIP !== undefined)
    const real = await app().request({ method: 'POST', url, payload: { metadata: { name: 'real' }, spec: { clusterIP: '10.96.150.1', type: 'NodePort', ports: [port({ nodePort: 30050 })] } } })
    assert.equal(real.statusCode, 201, real.body)
    const taken = await app().request({ method: 'POST', url: `${url}?dryRun=All`, payload: { metadata: { name: 'dry-2' }, spec: { clusterIP: '10.96.150.1', ports: [port()] } } })
    assertInvalid(taken, 'spec.clusterIPs', undefined, 'provided IP is already allocated')
  })

  it('keeps the cluster IP immutable, and the addresses across a PUT that omits them', async () => {
    const created = (await app().request({ method: 'POST', url, payload: { metadata: { name: 'steady' }, spec: { type: 'NodePort', ports: [port({ name: 'http' })] } } })).json()
    const changed = await app().request({ method: 'PATCH', url: `${url}/steady`, headers: mergePatch, payload: { spec: { clusterIP: '10.96.201.1', clusterIPs: ['10.96.201.1'] } } })
    assertInvalid(changed, 'spec.clusterIPs[0]', 'FieldValueInvalid', 'may not change once set')
    // A client that never read the allocated values (kubectl replace of its own manifest).
    const put = await app().request({ method: 'PUT', url: `${url}/steady`, payload: { metadata: { name: 'steady' }, spec: { type: 'NodePort', ports: [port({ name: 'http' })] } } })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().spec.clusterIP, created.spec.clusterIP)
    assert.equal(put.json().spec.ports[0].nodePort, created.spec.ports[0].nodePort)
  })

  it('releases node ports when NodePort becomes ClusterIP, and the cluster IP when it becomes ExternalName', async () => {
    const created = (await app().request({ method: 'POST', url, payload: { metadata: { name: 'shifty' }, spec: { type: 'NodePort', ports: [port({ nodePort: 30060 })] } } })).json()
    const toClusterIP = await app().request({ method: 'PATCH', url: `${url}/shifty`, headers: mergePatch, payload: { spec: { type: 'ClusterIP' } } })
    assert.equal(toClusterIP.statusCode, 200, toClusterIP.body)
    assert.equal(toClusterIP.json().spec.ports[0].nodePort, undefined)
    assert.equal(toClusterIP.json().spec.externalTrafficPolicy, undefined)
    assert.equal((await app().request({ method: 'POST', url, payload: { metadata: { name: 'port-taker' }, spec: { type: 'NodePort', ports: [port({ nodePort: 30060 })] } } })).statusCode, 201)

    const toExternal = await app().request({ method: 'PATCH', url: `${url}/shifty`, headers: mergePatch, payload: { spec: { type: 'ExternalName', externalName: 'x.example.com' } } })
    assert.equal(toExternal.statusCode, 200, toExternal.body)
    assert.equal(toExternal.json().spec.clusterIP, undefined)
    const ipTaker = await app().request({ method: 'POST', url, payload: { metadata: { name: 'ip-taker' }, spec: { clusterIP: created.spec.clusterIP, ports: [port()] } } })
    assert.equal(ipTaker.statusCode, 201, ipTaker.body)

    const back = await app().request({ method: 'PATCH', url: `${url}/shifty`, headers: mergePatch, payload: { spec: { type: 'ClusterIP', externalName: null } } })
    assert.equal(back.statusCode, 200, back.body)
    assert.ok(back.json().spec.clusterIP !== undefined && back.json().spec.clusterIP !== created.spec.clusterIP)
  })

  it('shows kubectl columns: type, cluster IP, external IP, ports', async () => {
    await app().request({ method: 'POST', url, payload: { metadata: { name: 'shown' }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [port({ nodePort: 30070 })] } } })
    await app().request({ method: 'POST', url, payload: { metadata: { name: 'shown-lb' }, spec: { type: 'LoadBalancer', ports: [port({ nodePort: 30071 })] } } })
    const table = (await app().request({ method: 'GET', url, headers: TABLE })).json()
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.name), ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'])
    const row = (name: string) => table.rows.find((r: Obj) => r.cells[0] === name).cells
    const shown = row('shown')
    assert.equal(shown[1], 'NodePort')
    assert.match(shown[2], /^10\./)
    assert.equal(shown[3], '<none>')
    assert.equal(shown[4], '80:30070/TCP')
    assert.equal(shown[6], 'app=web')
    assert.equal(row('shown-lb')[3], '<pending>')
  })

  it('serves the short name svc and the status subresource', async () => {
    const list = await app().request({ method: 'GET', url: '/api/v1' })
    const entry = list.json().resources.find((r: Obj) => r.name === 'services')
    assert.deepEqual(entry.shortNames, ['svc'])
    assert.ok(list.json().resources.some((r: Obj) => r.name === 'services/status'))
  })
})

describe('services on a dual-stack cluster', () => {
  const app = suiteApp({ services: { clusterIPRanges: ['10.96.0.0/16', 'fd00:10:96::/112'] } })

  it('gives PreferDualStack services an address of each family, the primary first', async () => {
    const res = await app().request({ method: 'POST', url, payload: { metadata: { name: 'dual' }, spec: { ipFamilyPolicy: 'PreferDualStack', ports: [port()] } } })
    assert.equal(res.statusCode, 201, res.body)
    const spec = res.json().spec
    assert.deepEqual(spec.ipFamilies, ['IPv4', 'IPv6'])
    assert.match(spec.clusterIPs[0], /^10\.96\./)
    assert.match(spec.clusterIPs[1], /^fd00:10:96::/)
    assert.equal(spec.clusterIP, spec.clusterIPs[0])
  })

  it('gives an IPv6 service an IPv6 address, and a requested one in canonical form is taken once', async () => {
    const v6 = await app().request({ method: 'POST', url, payload: { metadata: { name: 'six' }, spec: { ipFamilies: ['IPv6'], ports: [port()] } } })
    assert.equal(v6.statusCode, 201, v6.body)
    assert.match(v6.json().spec.clusterIP, /^fd00:10:96::[0-9a-f]+$/)
    const pinned = await app().request({ method: 'POST', url, payload: { metadata: { name: 'six-pinned' }, spec: { clusterIP: 'fd00:10:96::abc', ports: [port()] } } })
    assert.equal(pinned.statusCode, 201, pinned.body)
    assert.deepEqual(pinned.json().spec.ipFamilies, ['IPv6'])
    const again = await app().request({ method: 'POST', url, payload: { metadata: { name: 'six-again' }, spec: { clusterIP: 'fd00:10:96:0:0:0:0:abc', ports: [port()] } } })
    assertInvalid(again, 'spec.clusterIPs', undefined, 'provided IP is already allocated')
  })

  it('adds the second family when a single-stack service is upgraded, and releases it on downgrade', async () => {
    const created = (await app().request({ method: 'POST', url, payload: { metadata: { name: 'grow' }, spec: { ports: [port()] } } })).json()
    assert.equal(created.spec.clusterIPs.length, 1)
    const up = await app().request({ method: 'PATCH', url: `${url}/grow`, headers: mergePatch, payload: { spec: { ipFamilyPolicy: 'RequireDualStack' } } })
    assert.equal(up.statusCode, 200, up.body)
    const v6 = up.json().spec.clusterIPs[1]
    assert.match(v6, /^fd00:10:96::/)
    const down = await app().request({ method: 'PATCH', url: `${url}/grow`, headers: mergePatch, payload: { spec: { ipFamilyPolicy: 'SingleStack' } } })
    assert.equal(down.statusCode, 200, down.body)
    assert.deepEqual(down.json().spec.clusterIPs, [created.spec.clusterIP])
    const reuse = await app().request({ method: 'POST', url, payload: { metadata: { name: 'reuse-six' }, spec: { clusterIP: v6, ports: [port()] } } })
    assert.equal(reuse.statusCode, 201, reuse.body)
  })
})
