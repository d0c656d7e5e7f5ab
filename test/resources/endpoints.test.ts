// Endpoints (core v1) and EndpointSlice (discovery.svc.io/v1, also served as discovery.k8s.io/v1):
// the reference's validation messages, defaults, topology dropping, generation and columns.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'
import { GROUPS } from '../../resources/naming.js'

type Obj = Record<string, any>
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const NS = 'default'
const epUrl = `/api/v1/namespaces/${NS}/endpoints`
const sliceUrl = (group = GROUPS.discovery) => `/apis/${group}/v1/namespaces/${NS}/endpointslices`

describe('Endpoints', () => {
  // No controllers: nothing else writes Endpoints here.
  const app = suiteApp({ controllers: ['-endpoint', '-endpointslice'] })
  const post = async (body: Obj) => await app().request({ method: 'POST', url: epUrl, payload: body })
  const withSubsets = (name: string, subsets: Obj[]) => post({ metadata: { name }, subsets })

  it('refuses special and malformed addresses, with the reference\'s messages', async () => {
    const cases: Array<[string, string, string]> = [
      ['127.0.0.1', 'subsets[0].addresses[0].ip', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['::1', 'subsets[0].addresses[0].ip', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['169.254.1.1', 'subsets[0].addresses[0].ip', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
      ['fe80::1', 'subsets[0].addresses[0].ip', 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'],
      ['224.0.0.10', 'subsets[0].addresses[0].ip', 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'],
      ['0.0.0.0', 'subsets[0].addresses[0].ip', 'may not be unspecified (0.0.0.0)'],
      ['not-an-ip', 'subsets[0].addresses[0].ip', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']
    ]
    for (const [ip, field, message] of cases) {
      assertInvalid(await withSubsets('bad', [{ addresses: [{ ip }], ports: [{ port: 80 }] }]), field, 'FieldValueInvalid', message)
    }
  })

  it('checks subsets, hostnames, node names and ports', async () => {
    assertInvalid(await withSubsets('e', [{ ports: [{ port: 80 }] }]), 'subsets[0]', 'FieldValueRequired', 'must specify `addresses` or `notReadyAddresses`')
    assertInvalid(await withSubsets('e', [{ notReadyAddresses: [{ ip: '10.0.0.1', hostname: 'Bad_Host' }] }]), 'subsets[0].notReadyAddresses[0].hostname', 'FieldValueInvalid')
    assertInvalid(await withSubsets('e', [{ addresses: [{ ip: '10.0.0.1', nodeName: 'Node_1' }] }]), 'subsets[0].addresses[0].nodeName', 'FieldValueInvalid')
    const twoPorts = await withSubsets('e', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }, { name: 'b', port: 0, protocol: 'ICMP' }] }])
    assertInvalid(twoPorts, 'subsets[0].ports[0].name', 'FieldValueRequired')
    assertInvalid(twoPorts, 'subsets[0].ports[1].port', 'FieldValueInvalid', 'must be between 1 and 65535, inclusive')
    assertInvalid(twoPorts, 'subsets[0].ports[1].protocol', 'FieldValueNotSupported', 'supported values: "SCTP", "TCP", "UDP"')
  })

  it('defaults port protocols, and shows ip:port pairs, three at most', async () => {
    const res = await withSubsets('many', [
      { addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] },
      { addresses: [{ ip: '2001:db8::1' }] }
    ])
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().subsets[0].ports, [{ name: 'a', port: 80, protocol: 'TCP' }, { name: 'b', port: 81, protocol: 'TCP' }])
    assert.equal((await withSubsets('one', [{ addresses: [{ ip: '2001:db8::1' }], ports: [{ port: 443 }] }])).statusCode, 201)
    assert.equal((await post({ metadata: { name: 'none' } })).statusCode, 201)
    const table = (await app().request({ method: 'GET', url: epUrl, headers: TABLE })).json()
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.name), ['Name', 'Endpoints', 'Age'])
    const cell = (name: string) => table.rows.find((r: Obj) => r.cells[0] === name).cells[1]
    assert.equal(cell('many'), '10.0.0.1:80,10.0.0.2:80,10.0.0.1:81 + 2 more...')
    assert.equal(cell('one'), '[2001:db8::1]:443')
    assert.equal(cell('none'), '<none>')
    // `kubectl get ep`
    const byShortName = await app().request({ method: 'GET', url: '/api/v1' })
    assert.deepEqual(byShortName.json().resources.find((r: Obj) => r.name === 'endpoints').shortNames, ['ep'])
  })
})

describe('EndpointSlice', () => {
  const app = suiteApp({ controllers: ['-endpoint', '-endpointslice'] })
  const post = async (body: Obj, group?: string) => await app().request({ method: 'POST', url: sliceUrl(group), payload: body })
  const slice = (name: string, extra: Obj) => ({ metadata: { name }, addressType: 'IPv4', endpoints: [], ...extra })

  it('is served under the upstream group name too', async () => {
    const res = await post(slice('upstream', { endpoints: [{ addresses: ['10.0.0.1'] }] }), 'discovery.k8s.io')
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().apiVersion, 'discovery.k8s.io/v1')
    const ours = await app().request({ method: 'GET', url: `${sliceUrl()}/upstream` })
    assert.equal(ours.json().apiVersion, `${GROUPS.discovery}/v1`)
  })

  it('checks the address type, each address against it, and the endpoint fields', async () => {
    assertInvalid(await post({ metadata: { name: 'a' }, addressType: 'IP', endpoints: [] }), 'addressType', 'FieldValueNotSupported', 'supported values: "FQDN", "IPv4", "IPv6"')
    assertInvalid(await post(slice('a', { endpoints: [{ addresses: ['2001:db8::1'] }] })), 'endpoints[0].addresses[0]', 'FieldValueInvalid', 'must be a valid IPv4 address')
    assertInvalid(await post(slice('a', { addressType: 'IPv6', endpoints: [{ addresses: ['10.0.0.1'] }] })), 'endpoints[0].addresses[0]', 'FieldValueInvalid', 'must be a valid IPv6 address')
    assertInvalid(await post(slice('a', { endpoints: [{ addresses: ['127.0.0.2'] }] })), 'endpoints[0].addresses[0]', 'FieldValueInvalid', 'may not be in the loopback range (127.0.0.0/8, ::1/128)')
    assertInvalid(await post(slice('a', { addressType: 'FQDN', endpoints: [{ addresses: ['localhost'] }] })), 'endpoints[0].addresses[0]', 'FieldValueInvalid', 'should be a domain with at least two segments separated by dots')
    assert.equal((await post(slice('fqdn', { addressType: 'FQDN', endpoints: [{ addresses: ['db.example.com'] }] }))).statusCode, 201)
    assertInvalid(await post(slice('a', { endpoints: [{ addresses: [] }] })), 'endpoints[0].addresses', 'FieldValueRequired', 'must contain at least 1 address')
    const many = Array.from({ length: 101 }, (_, i) => `10.0.${Math.floor(i / 200)}.${i + 1}`)
    assertInvalid(await post(slice('a', { endpoints: [{ addresses: many }] })), 'endpoints[0].addresses', 'FieldValueTooMany', 'must have at most 100 items')
    const endpoints = Array.from({ length: 1001 }, (_, i) => ({ addresses: [`10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`] }))
    assertInvalid(await post(slice('a', { endpoints })), 'endpoints', 'FieldValueTooMany', 'must have at most 1000 items')
    assertInvalid(await post(slice('a', { endpoints: [{ addresses: ['10.0.0.1'], hostname: 'A.b', nodeName: 'Node_1' }] })), 'endpoints[0].hostname', 'FieldValueInvalid')
    assertInvalid(await post(slice('a', { endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'Node_1' }] })), 'endpoints[0].nodeName', 'FieldValueInvalid')
    assertInvalid(await post(slice('a', { endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }, { name: 'a' }] } }] })), 'endpoints[0].hints.forZones[1].name', 'FieldValueDuplicate')
  })

  it('checks ports: unique names, protocols, appProtocol; defaults name and protocol', async () => {
    const bad = await post(slice('p', { ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81, protocol: 'ICMP', appProtocol: 'not/a/name' }] }))
    assertInvalid(bad, 'ports[1].name', 'FieldValueDuplicate')
    assertInvalid(bad, 'ports[1].protocol', 'FieldValueNotSupported')
    assertInvalid(bad, 'ports[1].appProtocol', 'FieldValueInvalid')
    const res = await post(slice('p', { ports: [{ port: 80 }] }))
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().ports, [{ name: '', protocol: 'TCP', port: 80 }])
  })

  it('keeps addressType immutable, bumps generation on changes, and drops deprecatedTopology', async () => {
    const created = await post(slice('t', { endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { zone: 'a' } }] }))
    assert.equal(created.statusCode, 201, created.body)
    const obj = created.json()
    assert.equal(obj.endpoints[0].deprecatedTopology, undefined)
    assert.equal(obj.metadata.generation, 1)
    const url = `${sliceUrl()}/t`
    const put = async (body: Obj): Promise<Obj> => {
      const res = await app().request({ method: 'PUT', url, payload: body })
      assert.equal(res.statusCode, 200, res.body)
      return res.json()
    }
    const changed = await put({ ...obj, endpoints: [{ addresses: ['10.0.0.2'] }] })
    assert.equal(changed.metadata.generation, 2)
    const relabelled = await put({ ...changed, metadata: { ...changed.metadata, labels: { a: 'b' } } })
    assert.equal(relabelled.metadata.generation, 3)
    const annotated = await put({ ...relabelled, metadata: { ...relabelled.metadata, annotations: { a: 'b' } } })
    assert.equal(annotated.metadata.generation, 3)
    assertInvalid(await app().request({ method: 'PUT', url, payload: { ...annotated, addressType: 'IPv6', endpoints: [] } }), 'addressType', 'FieldValueInvalid', 'field is immutable')
  })

  it('shows address type, ports and addresses, three at most', async () => {
    await post(slice('cols', { endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }, { addresses: ['10.0.0.3'] }, { addresses: ['10.0.0.4'] }], ports: [{ name: 'a', port: 80 }, { name: 'b' }] }))
    await post(slice('empty', {}))
    const table = (await app().request({ method: 'GET', url: sliceUrl(), headers: TABLE })).json()
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.name), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age'])
    const row = (name: string) => table.rows.find((r: Obj) => r.cells[0] === name).cells.slice(1, 4)
    assert.deepEqual(row('cols'), ['IPv4', '80,b', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...'])
    assert.deepEqual(row('empty'), ['IPv4', '<unset>', '<unset>'])
  })
})
