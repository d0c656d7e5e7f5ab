// NetworkPolicy (networking.svc.io/v1): the v1 defaults (protocol TCP, policyTypes from the
// rules), the reference's validation of peers, ports, IP blocks and policy types, the columns,
// no status, and creation under the upstream group name as kubectl sends it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const base = '/apis/networking.svc.io/v1'
const policies = `${base}/namespaces/default/networkpolicies`
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

type Obj = Record<string, unknown>
interface Case { name: string, spec: Obj, field?: string, reason?: string, message?: string }

const from = (...peers: Obj[]) => ({ ingress: [{ from: peers }] })
const to = (...peers: Obj[]) => ({ egress: [{ to: peers }] })
const ports = (...list: Obj[]) => ({ ingress: [{ ports: list }] })
const egressPorts = (...list: Obj[]) => ({ egress: [{ ports: list }] })
const ipBlock = (cidr: string, except?: string[]) => ({ ipBlock: except === undefined ? { cidr } : { cidr, except } })

const cases: Case[] = [
  { name: 'an empty spec (every pod, no traffic)', spec: {} },
  { name: 'a pod selector with a bad operator', spec: { podSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }, field: 'spec.podSelector.matchExpressions[0].operator', reason: 'FieldValueInvalid', message: 'not a valid selector operator' },
  { name: 'a pod peer', spec: from({ podSelector: { matchLabels: { role: 'web' } } }) },
  { name: 'a pod and namespace peer', spec: from({ podSelector: {}, namespaceSelector: { matchLabels: { team: 'a' } } }) },
  { name: 'a peer with nothing', spec: from({}), field: 'spec.ingress[0].from[0]', reason: 'FieldValueRequired', message: 'must specify a peer' },
  { name: 'an egress peer with nothing', spec: to({}), field: 'spec.egress[0].to[0]', reason: 'FieldValueRequired', message: 'must specify a peer' },
  { name: 'an ipBlock beside a pod selector', spec: from({ podSelector: {}, ...ipBlock('10.0.0.0/8') }), field: 'spec.ingress[0].from[0]', reason: 'FieldValueForbidden', message: 'may not specify both ipBlock and another peer' },
  { name: 'an ipBlock beside a namespace selector', spec: to({ namespaceSelector: {}, ...ipBlock('10.0.0.0/8') }), field: 'spec.egress[0].to[0]', reason: 'FieldValueForbidden', message: 'may not specify both ipBlock and another peer' },
  { name: 'a bad peer namespace selector', spec: from({ namespaceSelector: { matchLabels: { 'bad key!': 'x' } } }), field: 'spec.ingress[0].from[0].namespaceSelector.matchLabels', reason: 'FieldValueInvalid' },
  { name: 'an ipBlock with excepts inside', spec: to(ipBlock('192.168.0.0/16', ['192.168.1.0/24', '192.168.2.7/32'])) },
  { name: 'an IPv6 ipBlock', spec: from(ipBlock('2001:db8::/64', ['2001:db8::/96'])) },
  { name: 'an ipBlock without cidr', spec: from(ipBlock('')), field: 'spec.ingress[0].from[0].ipBlock.cidr', reason: 'FieldValueRequired' },
  { name: 'an ipBlock with a bad cidr', spec: from(ipBlock('10.0.0.0')), field: 'spec.ingress[0].from[0].ipBlock.cidr', reason: 'FieldValueInvalid', message: 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' },
  { name: 'an except that is no CIDR', spec: from(ipBlock('10.0.0.0/8', ['nope'])), field: 'spec.ingress[0].from[0].ipBlock.except[0]', reason: 'FieldValueInvalid', message: 'must be a valid CIDR value' },
  { name: 'an except outside the cidr', spec: from(ipBlock('10.0.0.0/16', ['10.1.0.0/24'])), field: 'spec.ingress[0].from[0].ipBlock.except[0]', reason: 'FieldValueInvalid', message: 'must be a strict subset of `cidr`' },
  { name: 'an except equal to the cidr', spec: from(ipBlock('10.0.0.0/16', ['10.0.0.0/24', '10.0.0.0/16'])), field: 'spec.ingress[0].from[0].ipBlock.except[1]', reason: 'FieldValueInvalid', message: 'must be a strict subset of `cidr`' },
  { name: 'an except wider than the cidr', spec: to(ipBlock('10.0.0.0/16', ['10.0.0.0/8'])), field: 'spec.egress[0].to[0].ipBlock.except[0]', reason: 'FieldValueInvalid', message: 'must be a strict subset of `cidr`' },
  { name: 'an IPv6 except in an IPv4 cidr', spec: from(ipBlock('10.0.0.0/8', ['2001:db8::/64'])), field: 'spec.ingress[0].from[0].ipBlock.except[0]', reason: 'FieldValueInvalid', message: 'must be a strict subset of `cidr`' },
  { name: 'numbered and named ports', spec: ports({ port: 80 }, { protocol: 'UDP', port: 'dns' }, { protocol: 'SCTP' }) },
  { name: 'a port range', spec: egressPorts({ port: 32000, endPort: 32768 }) },
  { name: 'an unknown protocol', spec: ports({ protocol: 'ICMP', port: 1 }), field: 'spec.ingress[0].ports[0].protocol', reason: 'FieldValueNotSupported', message: 'supported values: "TCP", "UDP", "SCTP"' },
  { name: 'port 0', spec: ports({ port: 0 }), field: 'spec.ingress[0].ports[0].port', reason: 'FieldValueInvalid', message: 'must be between 1 and 65535, inclusive' },
  { name: 'port 65536', spec: egressPorts({ port: 65536 }), field: 'spec.egress[0].ports[0].port', reason: 'FieldValueInvalid', message: 'must be between 1 and 65535, inclusive' },
  { name: 'a port name with upper case', spec: ports({ port: 'HTTP' }), field: 'spec.ingress[0].ports[0].port', reason: 'FieldValueInvalid', message: 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)' },
  { name: 'a port name over 15 characters', spec: ports({ port: 'a-very-long-port-name' }), field: 'spec.ingress[0].ports[0].port', reason: 'FieldValueInvalid', message: 'must be no more than 15 characters' },
  { name: 'an endPort before port', spec: ports({ port: 100, endPort: 99 }), field: 'spec.ingress[0].ports[0].endPort', reason: 'FieldValueInvalid', message: 'must be greater than or equal to `port`' },
  { name: 'an endPort out of range', spec: ports({ port: 100, endPort: 70000 }), field: 'spec.ingress[0].ports[0].endPort', reason: 'FieldValueInvalid', message: 'must be between 1 and 65535, inclusive' },
  { name: 'an endPort with a named port', spec: ports({ port: 'http', endPort: 90 }), field: 'spec.ingress[0].ports[0].endPort', reason: 'FieldValueInvalid', message: 'may not be specified when `port` is non-numeric' },
  { name: 'an endPort without port', spec: egressPorts({ endPort: 90 }), field: 'spec.egress[0].ports[0].endPort', reason: 'FieldValueInvalid', message: 'may not be specified when `port` is not specified' },
  { name: 'both policy types', spec: { policyTypes: ['Ingress', 'Egress'] } },
  { name: 'an unknown policy type', spec: { policyTypes: ['Ingress', 'Sideways'] }, field: 'spec.policyTypes[1]', reason: 'FieldValueNotSupported', message: 'supported values: "Ingress", "Egress"' },
  { name: 'three policy types', spec: { policyTypes: ['Ingress', 'Egress', 'Ingress'] }, field: 'spec.policyTypes', reason: 'FieldValueInvalid', message: 'may not specify more than two policyTypes' }
]

describe('NetworkPolicy', () => {
  const app = suiteApp()
  let n = 0
  const create = (spec: Obj | undefined, name = `p${++n}`) =>
    app().request({ method: 'POST', url: policies, payload: { metadata: { name }, ...(spec === undefined ? {} : { spec }) } })

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await create(c.spec)
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  const defaults: Array<{ name: string, spec: Obj | undefined, expect: (spec: any) => void }> = [
    { name: 'a policy without spec gets the empty selector and Ingress', spec: undefined, expect: s => { assert.deepEqual(s, { podSelector: {}, policyTypes: ['Ingress'] }) } },
    { name: 'ingress rules alone make an Ingress policy', spec: from({ podSelector: {} }), expect: s => { assert.deepEqual(s.policyTypes, ['Ingress']) } },
    { name: 'egress rules add Egress', spec: to(ipBlock('10.0.0.0/8')), expect: s => { assert.deepEqual(s.policyTypes, ['Ingress', 'Egress']) } },
    { name: 'an empty egress list adds nothing', spec: { egress: [] }, expect: s => { assert.deepEqual(s.policyTypes, ['Ingress']) } },
    { name: 'given policy types are kept', spec: { egress: [{}], policyTypes: ['Egress'] }, expect: s => { assert.deepEqual(s.policyTypes, ['Egress']) } },
    { name: 'a port without protocol is TCP', spec: { ...ports({ port: 80 }), ...egressPorts({ protocol: 'UDP', port: 53 }) }, expect: s => { assert.equal(s.ingress[0].ports[0].protocol, 'TCP'); assert.equal(s.egress[0].ports[0].protocol, 'UDP') } }
  ]
  for (const d of defaults) {
    it(`defaults: ${d.name}`, async () => {
      const res = await create(d.spec)
      assert.equal(res.statusCode, 201, res.body)
      d.expect(res.json().spec)
    })
  }

  it('defaults policyTypes on update too, once egress rules arrive after they were cleared', async () => {
    await create({ podSelector: {} }, 'grows')
    const res = await app().request({ method: 'PATCH', url: `${policies}/grows`, headers: mergePatch, payload: { spec: { policyTypes: null, egress: [{ to: [ipBlock('10.0.0.0/8')] }] } } })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().spec.policyTypes, ['Ingress', 'Egress'])
    assert.equal(res.json().metadata.generation, 2)
  })

  it('validates updates as creates', async () => {
    await create({}, 'checked')
    const res = await app().request({ method: 'PATCH', url: `${policies}/checked`, headers: mergePatch, payload: { spec: { ingress: [{ from: [{}] }] } } })
    assertInvalid(res, 'spec.ingress[0].from[0]', 'FieldValueRequired', 'must specify a peer')
  })

  it('has no status', async () => {
    const res = await app().request({ method: 'GET', url: `${policies}/checked/status` })
    assert.equal(res.statusCode, 404, res.body)
    const discovery = (await app().request({ method: 'GET', url: base })).json()
    assert.ok(!discovery.resources.some((r: { name: string }) => r.name === 'networkpolicies/status'))
    const policy = discovery.resources.find((r: { name: string }) => r.name === 'networkpolicies')
    assert.deepEqual(policy.shortNames, ['netpol'])
    assert.equal(policy.namespaced, true)
  })

  it('shows a policy as kubectl does: pod selector and age', async () => {
    await create({ podSelector: { matchLabels: { role: 'db' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] } }, 'shown')
    const t = (await app().request({ method: 'GET', url: policies, headers: TABLE })).json()
    assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Pod-Selector', 'Age'])
    const row = (name: string) => t.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells
    assert.equal(row('shown')[1], 'role=db,tier in (a,b)')
    assert.equal(row('checked')[1], '<none>')
  })

  it('is created under the upstream group name as kubectl sends it', async () => {
    const res = await app().request({
      method: 'POST',
      url: '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies?fieldManager=kubectl-create&fieldValidation=Strict',
      payload: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'upstream' }, spec: { podSelector: { matchLabels: { app: 'api' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'x' } } }], ports: [{ port: 443 }] }] } }
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().apiVersion, 'networking.k8s.io/v1')
    assert.equal(res.json().spec.ingress[0].ports[0].protocol, 'TCP')
    const got = (await app().request({ method: 'GET', url: `${policies}/upstream` })).json()
    assert.equal(got.apiVersion, 'networking.svc.io/v1')
    assert.deepEqual(got.spec.policyTypes, ['Ingress'])
  })

  it('refuses fields the v1 shape lacks, status among them', async () => {
    const res = await app().request({ method: 'POST', url: `${policies}?fieldValidation=Strict`, payload: { metadata: { name: 'strict' }, spec: {}, status: { conditions: [] } } })
    assert.equal(res.statusCode, 400, res.body)
    assert.match(res.json().message, /unknown field "status"/)
  })
})
