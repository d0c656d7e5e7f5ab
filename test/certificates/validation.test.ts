// CertificateSigningRequest: each validation rule of the kind, the requester taken from the
// caller, the approval and status subresources' own rules, and the table columns.
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from '../resources/suite.js'
import { certificateRequest, selfSignedCertificate, tamper, type TestRequest } from '../helpers/csr.js'

const url = '/apis/certificates.svc.io/v1/certificatesigningrequests'
const CLIENT = 'svc.io/svc-apiserver-client'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }

interface Case { name: string, spec: () => Record<string, unknown>, status?: Record<string, unknown>, field?: string, reason?: string, message?: string }

describe('CertificateSigningRequest validation', () => {
  const app = suiteApp()
  let req: TestRequest
  let CA_PEM: string
  before(async () => {
    req = await certificateRequest({ cn: 'jane', o: ['devs'] })
    CA_PEM = await selfSignedCertificate()
  })
  const spec = (extra: Record<string, unknown> = {}) => ({ request: req.b64, signerName: CLIENT, usages: ['client auth'], ...extra })
  const pem = (text: string) => Buffer.from(text).toString('base64')

  const cases: Case[] = [
    { name: 'a client request', spec: () => spec() },
    { name: 'a request with a lifetime of ten minutes', spec: () => spec({ expirationSeconds: 600 }) },
    { name: 'a request for a signer of its own', spec: () => spec({ signerName: 'example.com/my-signer', usages: ['server auth', 'digital signature'] }) },
    { name: 'a request that is not PEM', spec: () => spec({ request: pem('not a request') }), field: 'spec.request', reason: 'FieldValueInvalid', message: 'PEM block type must be CERTIFICATE REQUEST' },
    { name: 'a PEM block of another type', spec: () => spec({ request: pem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n') }), field: 'spec.request', reason: 'FieldValueInvalid', message: 'PEM block type must be CERTIFICATE REQUEST' },
    { name: 'a request whose signature does not hold', spec: () => spec({ request: tamper(req.pem) }), field: 'spec.request', reason: 'FieldValueInvalid', message: 'verification failure' },
    { name: 'a request without signer', spec: () => spec({ signerName: '' }), field: 'spec.signerName', reason: 'FieldValueRequired' },
    { name: 'a signer name without a path', spec: () => spec({ signerName: 'example.com' }), field: 'spec.signerName', reason: 'FieldValueInvalid', message: 'fully qualified domain and path' },
    { name: 'the legacy signer', spec: () => spec({ signerName: 'svc.io/legacy-unknown' }), field: 'spec.signerName', reason: 'FieldValueInvalid', message: 'the legacy signerName is not allowed via this API version' },
    { name: 'a request without usages', spec: () => spec({ usages: [] }), field: 'spec.usages', reason: 'FieldValueRequired' },
    { name: 'an unknown usage', spec: () => spec({ usages: ['client auth', 'world domination'] }), field: 'spec.usages[1]', reason: 'FieldValueNotSupported' },
    { name: 'a duplicate usage', spec: () => spec({ usages: ['client auth', 'client auth'] }), field: 'spec.usages[1]', reason: 'FieldValueDuplicate' },
    { name: 'a lifetime under ten minutes', spec: () => spec({ expirationSeconds: 599 }), field: 'spec.expirationSeconds', reason: 'FieldValueInvalid', message: 'may not specify a duration less than 600 seconds' }
  ]

  let n = 0
  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await app().request({ method: 'POST', url, payload: { metadata: { name: `csr-${++n}` }, spec: c.spec() } })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('sets the requester from the caller, never from the body, and drops a status sent on create', async () => {
    const res = await app().request({
      as: 'alice',
      method: 'POST',
      url,
      payload: { metadata: { name: 'mine' }, spec: spec({ username: 'admin', uid: 'forged', groups: ['system:masters'], extra: { x: ['y'] } }), status: { conditions: [{ type: 'Approved', status: 'True' }] } }
    })
    assert.equal(res.statusCode, 201, res.body)
    const csr = res.json()
    assert.equal(csr.spec.username, 'alice')
    assert.equal(csr.spec.uid, 'uid-alice')
    assert.deepEqual(csr.spec.groups, ['developers', 'qa', 'system:authenticated'])
    assert.equal(csr.spec.extra, undefined)
    assert.equal(csr.status, undefined)
  })

  it('keeps the spec on update: the requester cannot be changed later', async () => {
    const got = (await app().request({ method: 'GET', url: `${url}/mine` })).json()
    got.spec.username = 'admin'
    got.metadata.labels = { a: 'b' }
    const res = await app().request({ method: 'PUT', url: `${url}/mine`, payload: got })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().spec.username, 'alice')
    assert.deepEqual(res.json().metadata.labels, { a: 'b' })
  })

  const approval = async (name: string, conditions: unknown[]) => {
    const got = (await app().request({ method: 'GET', url: `${url}/${name}` })).json()
    return await app().request({ method: 'PUT', url: `${url}/${name}/approval`, payload: { ...got, status: { conditions } } })
  }

  it('refuses duplicate condition types, a condition without status, and Approved with Denied', async () => {
    await app().request({ method: 'POST', url, payload: { metadata: { name: 'conds' }, spec: spec() } })
    assertInvalid(await approval('conds', [{ type: 'Approved', status: 'True' }, { type: 'Approved', status: 'True' }]), 'status.conditions[1].type', 'FieldValueDuplicate')
    assertInvalid(await approval('conds', [{ type: 'Approved', status: '' }]), 'status.conditions[0].status', 'FieldValueRequired')
    assertInvalid(await approval('conds', [{ type: 'Approved', status: 'False' }]), 'status.conditions[0].status', 'FieldValueNotSupported')
    assertInvalid(await approval('conds', [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }]), 'status.conditions', 'FieldValueInvalid', 'mutually exclusive')
  })

  it('approves through /approval with the condition times filled, and keeps Approved once set', async () => {
    const res = await approval('conds', [{ type: 'Approved', status: 'True', reason: 'AdminSaysSo', message: 'ok' }])
    assert.equal(res.statusCode, 200, res.body)
    const cond = res.json().status.conditions[0]
    assert.equal(cond.type, 'Approved')
    assert.match(cond.lastUpdateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    assert.equal(cond.lastTransitionTime, cond.lastUpdateTime)
    assertInvalid(await approval('conds', []), 'status.conditions', 'FieldValueForbidden', 'may not remove a condition of type "Approved"')
  })

  it('takes only CERTIFICATE blocks without headers in status.certificate, and keeps it once set', async () => {
    const got = (await app().request({ method: 'GET', url: `${url}/conds` })).json()
    const put = (certificate: string) => app().request({ method: 'PUT', url: `${url}/conds/status`, payload: { ...got, status: { ...got.status, certificate } } })
    assertInvalid(await put(pem('hello')), 'status.certificate', 'FieldValueInvalid', 'must contain at least one CERTIFICATE PEM block')
    assertInvalid(await put(pem(req.pem)), 'status.certificate', 'FieldValueInvalid', 'only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"')
    const cert = CA_PEM
    const headed = cert.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n')
    assertInvalid(await put(pem(headed)), 'status.certificate', 'FieldValueInvalid', 'no PEM block headers are permitted')
    const ok = await put(pem(`issued:\n${cert}`))
    assert.equal(ok.statusCode, 200, ok.body)
    assert.deepEqual(ok.json().status.conditions.map((c: { type: string }) => c.type), ['Approved'])
    const issued = ok.json() as { status: Record<string, unknown> }
    const again = await app().request({ method: 'PUT', url: `${url}/conds/status`, payload: { ...issued, status: { ...issued.status, certificate: pem(cert) } } })
    assertInvalid(again, 'status.certificate', 'FieldValueForbidden', 'may not modify existing certificate content')
  })

  it('refuses a certificate on a request that is not approved', async () => {
    await app().request({ method: 'POST', url, payload: { metadata: { name: 'pending' }, spec: spec() } })
    const got = (await app().request({ method: 'GET', url: `${url}/pending` })).json()
    const res = await app().request({ method: 'PUT', url: `${url}/pending/status`, payload: { ...got, status: { certificate: pem(CA_PEM) } } })
    assertInvalid(res, 'status.certificate', 'FieldValueInvalid', 'Approved condition')
  })

  it('lists as kubectl get csr shows it: Age, SignerName, Requestor, RequestedDuration, Condition', async () => {
    await app().request({ as: 'bob', method: 'POST', url, payload: { metadata: { name: 'timed' }, spec: spec({ expirationSeconds: 3600 }) } })
    const table = (await app().request({ method: 'GET', url, headers: TABLE })).json()
    assert.deepEqual(table.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition'])
    const row = (name: string) => table.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells
    assert.deepEqual(row('timed').slice(2), [CLIENT, 'bob', '60m', 'Pending'])
    assert.deepEqual(row('conds').slice(2), [CLIENT, 'admin', '<none>', 'Approved,Issued'])
  })
})
