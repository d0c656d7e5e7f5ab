// Approval and signing permissions (the CertificateApproval and CertificateSigning admission
// plugins) and CertificateSubjectRestriction, under RBAC.
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { certificateRequest, selfSignedCertificate } from '../helpers/csr.js'

const url = '/apis/certificates.svc.io/v1/certificatesigningrequests'
const rbac = '/apis/rbac.authorization.svc.io/v1'
const CLIENT = 'svc.io/svc-apiserver-client'

describe('certificate approval and signing permissions', () => {
  const app = suiteApp({ authorizationModes: ['RBAC'] })
  let request: string
  let certificate: string

  const grant = async (user: string, rules: unknown[]) => {
    const name = `${user}-csr`
    assert.equal((await app().request({ method: 'POST', url: `${rbac}/clusterroles`, payload: { metadata: { name }, rules } })).statusCode, 201)
    const res = await app().request({ method: 'POST', url: `${rbac}/clusterrolebindings`, payload: { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name }, subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.svc.io' }] } })
    assert.equal(res.statusCode, 201, res.body)
  }
  const create = async (name: string, signerName: string, req = request) => {
    const res = await app().request({ method: 'POST', url, payload: { metadata: { name }, spec: { request: req, signerName, usages: ['client auth'] } } })
    return res
  }
  const approve = async (name: string, as: 'alice' | 'bob' | 'admin') => {
    const got = (await app().request({ method: 'GET', url: `${url}/${name}` })).json()
    return await app().request({ as, method: 'PUT', url: `${url}/${name}/approval`, payload: { ...got, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }] } } })
  }
  const sign = async (name: string, as: 'alice' | 'bob' | 'admin') => {
    const got = (await app().request({ method: 'GET', url: `${url}/${name}` })).json()
    return await app().request({ as, method: 'PUT', url: `${url}/${name}/status`, payload: { ...got, status: { ...got.status, certificate } } })
  }

  before(async () => {
    request = (await certificateRequest({ cn: 'jane' })).b64
    certificate = Buffer.from(await selfSignedCertificate()).toString('base64')
    await grant('alice', [
      { apiGroups: ['certificates.svc.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['certificates.svc.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
      { apiGroups: ['certificates.svc.io'], resources: ['signers'], verbs: ['approve'], resourceNames: ['example.com/*'] }
    ])
    await grant('bob', [
      { apiGroups: ['certificates.svc.io'], resources: ['certificatesigningrequests'], verbs: ['get'] },
      { apiGroups: ['certificates.svc.io'], resources: ['certificatesigningrequests/status'], verbs: ['update'] },
      { apiGroups: ['certificates.svc.io'], resources: ['signers'], verbs: ['sign'], resourceNames: ['example.com/signer'] }
    ])
    for (const [name, signer] of [['mine', 'example.com/signer'], ['other', 'other.example.com/signer'], ['client', CLIENT]]) {
      assert.equal((await create(name!, signer!)).statusCode, 201)
    }
  })

  it('lets a user approve for a signer they hold approve on, by <domain>/*', async () => {
    const res = await approve('mine', 'alice')
    assert.equal(res.statusCode, 200, res.body)
  })

  it('refuses approval for a signer the user may not approve for, with the reference message', async () => {
    for (const name of ['other', 'client']) {
      const res = await approve(name, 'alice')
      assert.equal(res.statusCode, 403, res.body)
      const signer = name === 'client' ? CLIENT : 'other.example.com/signer'
      assert.equal(res.json().message, `certificatesigningrequests.certificates.svc.io "${name}" is forbidden: user not permitted to approve requests with signerName "${signer}"`)
    }
  })

  it('needs update on certificatesigningrequests/approval before the signer is asked', async () => {
    const res = await approve('mine', 'bob')
    assert.equal(res.statusCode, 403)
    assert.match(res.json().message, /cannot update resource "certificatesigningrequests\/approval"/)
  })

  it('lets a signer set the certificate only with sign on the signer name', async () => {
    assert.equal((await approve('other', 'admin')).statusCode, 200)
    const refused = await sign('other', 'bob')
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal(refused.json().message, 'certificatesigningrequests.certificates.svc.io "other" is forbidden: user not permitted to sign requests with signerName "other.example.com/signer"')
    const ok = await sign('mine', 'bob')
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().status.certificate, certificate)
  })

  it('refuses a client-signer request for the system:masters group, and only for that signer', async () => {
    const masters = (await certificateRequest({ cn: 'root', o: ['system:masters'] })).b64
    const res = await create('masters', CLIENT, masters)
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().message, `certificatesigningrequests.certificates.svc.io "masters" is forbidden: use of ${CLIENT} signer with system:masters group is not allowed`)
    assert.equal((await create('masters-elsewhere', 'example.com/signer', masters)).statusCode, 201)
  })
})

describe('certificate admission plugins turned off', () => {
  const app = suiteApp({ admission: { disable: ['CertificateSubjectRestriction'] } })
  it('lets a system:masters request through when CertificateSubjectRestriction is disabled', async () => {
    const masters = (await certificateRequest({ cn: 'root', o: ['system:masters'] })).b64
    const res = await app().request({ method: 'POST', url, payload: { metadata: { name: 'm' }, spec: { request: masters, signerName: CLIENT, usages: ['client auth'] } } })
    assert.equal(res.statusCode, 201, res.body)
  })
})
