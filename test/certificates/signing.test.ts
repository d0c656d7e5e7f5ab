// The signing controller: each built-in signer's subject and usage rules, lifetimes, and the
// issued certificate's shape (issued by the cluster CA, never a CA itself).
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { X509Certificate } from 'node:crypto'
import { suiteApp } from '../resources/suite.js'
import { certificateRequest, type RequestOptions } from '../helpers/csr.js'
import { eventually } from '../helpers/eventually.js'
import { ensureCertificates, type Pki } from '../../auth/pki.js'

const url = '/apis/certificates.svc.io/v1/certificatesigningrequests'
const SIGNERS = { client: 'svc.io/svc-apiserver-client', node: 'svc.io/svc-apiserver-client-svclet', serving: 'svc.io/svclet-serving' }
const NODE_USAGES = ['key encipherment', 'digital signature', 'client auth']
const HOUR = 3600

let pki: Pki
before(async () => { pki = await ensureCertificates(mkdtempSync(join(tmpdir(), 'csr-signing-'))) })

describe('the signing controller', () => {
  const app = suiteApp({ get clusterSigning () { return { certPem: pki.caCertPem, keyPem: pki.caKeyPem, durationMs: 2 * HOUR * 1000 } } })
  let n = 0

  /** Creates and approves a request; answers the request once the controller has acted on it. */
  const submit = async (subject: RequestOptions, signerName: string, usages: string[], expirationSeconds?: number) => {
    const name = `req-${++n}`
    const req = await certificateRequest(subject)
    const created = await app().request({ method: 'POST', url, payload: { metadata: { name }, spec: { request: req.b64, signerName, usages, expirationSeconds } } })
    assert.equal(created.statusCode, 201, created.body)
    const approved = await app().request({ method: 'PUT', url: `${url}/${name}/approval`, payload: { ...(created.json() as object), status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }] } } })
    if (approved.statusCode === 409) {
      // The approving controller got there first (a node client request from a user allowed to
      // make one is approved by it, as the reference's csrapproving controller does).
      const current = (await app().request({ method: 'GET', url: `${url}/${name}` })).json()
      assert.ok(current.status?.conditions?.some((c: { type: string }) => c.type === 'Approved'), approved.body)
    } else {
      assert.equal(approved.statusCode, 200, approved.body)
    }
    return await eventually(async () => {
      const csr = (await app().request({ method: 'GET', url: `${url}/${name}` })).json()
      assert.ok(csr.status?.certificate !== undefined || csr.status?.conditions?.some((c: { type: string }) => c.type === 'Failed'), 'not acted on yet')
      return csr
    })
  }
  const issued = (csr: { status: { certificate: string } }) => new X509Certificate(Buffer.from(csr.status.certificate, 'base64'))
  const failure = (csr: { status?: { certificate?: string, conditions?: Array<{ type: string, reason?: string, message?: string }> } }) => {
    assert.equal(csr.status?.certificate, undefined)
    const failed = csr.status?.conditions?.find(c => c.type === 'Failed')
    assert.ok(failed, JSON.stringify(csr.status))
    assert.equal(failed.reason, 'SignerValidationFailure')
    return failed.message
  }
  const lifetime = (cert: X509Certificate) => (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 1000 - 5 * 60

  it('issues a client certificate from the cluster CA, not a CA, with the usages asked for', async () => {
    const cert = issued(await submit({ cn: 'jane', o: ['devs', 'qa'] }, SIGNERS.client, ['client auth', 'digital signature']))
    assert.ok(cert.checkIssued(new X509Certificate(pki.caCertPem)))
    assert.ok(cert.verify(new X509Certificate(pki.caCertPem).publicKey))
    assert.equal(cert.ca, false)
    assert.match(cert.subject, /CN=jane/)
    assert.match(cert.subject, /O=devs/)
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2'])
  })

  it('gives the smaller of the signing duration and expirationSeconds', async () => {
    assert.equal(lifetime(issued(await submit({ cn: 'a' }, SIGNERS.client, ['client auth'], 600))), 600)
    assert.equal(lifetime(issued(await submit({ cn: 'b' }, SIGNERS.client, ['client auth'], 24 * HOUR))), 2 * HOUR)
    assert.equal(lifetime(issued(await submit({ cn: 'c' }, SIGNERS.client, ['client auth']))), 2 * HOUR)
  })

  it('fails a client request for server auth', async () => {
    assert.equal(failure(await submit({ cn: 'jane' }, SIGNERS.client, ['client auth', 'server auth'])), 'invalid usage for client certificate: server auth')
  })

  it('issues a node client certificate for system:node:<name> in system:nodes', async () => {
    const cert = issued(await submit({ cn: 'system:node:n1', o: ['system:nodes'] }, SIGNERS.node, NODE_USAGES))
    assert.match(cert.subject, /CN=system:node:n1/)
    assert.match(cert.subject, /O=system:nodes/)
  })

  it('fails node client requests outside the node subject and exact usages', async () => {
    assert.equal(failure(await submit({ cn: 'system:node:n1', o: ['devs'] }, SIGNERS.node, NODE_USAGES)), 'subject organization is not system:nodes')
    assert.equal(failure(await submit({ cn: 'n1', o: ['system:nodes'] }, SIGNERS.node, NODE_USAGES)), 'subject common name does not begin with system:node:')
    assert.equal(failure(await submit({ cn: 'system:node:n1', o: ['system:nodes'] }, SIGNERS.node, ['client auth'])), 'usages must be exactly key encipherment, digital signature, client auth (key encipherment may be left out)')
    assert.equal(failure(await submit({ cn: 'system:node:n1', o: ['system:nodes'] }, SIGNERS.node, ['digital signature', 'client auth', 'server auth'])), 'usages must be exactly key encipherment, digital signature, client auth (key encipherment may be left out)')
    assert.equal(failure(await submit({ cn: 'system:node:n1', o: ['system:nodes'], dns: ['n1'] }, SIGNERS.node, NODE_USAGES)), 'subject alternative names are not allowed')
  })

  it('issues a node client certificate without key encipherment, as a node with an EC key asks', async () => {
    const cert = issued(await submit({ cn: 'system:node:n2', o: ['system:nodes'] }, SIGNERS.node, ['digital signature', 'client auth']))
    assert.match(cert.subject, /CN=system:node:n2/)
  })

  it('issues a serving certificate with the names asked for', async () => {
    const cert = issued(await submit({ cn: 'system:node:n1', o: ['system:nodes'], dns: ['n1.example.com'], ips: ['10.0.0.1'] }, SIGNERS.serving, ['key encipherment', 'digital signature', 'server auth']))
    assert.equal(cert.subjectAltName, 'DNS:n1.example.com, IP Address:10.0.0.1')
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1'])
  })

  it('fails serving requests without DNS or IP names, with email names, or without server auth', async () => {
    const node = { cn: 'system:node:n1', o: ['system:nodes'] }
    const usages = ['digital signature', 'server auth']
    assert.equal(failure(await submit(node, SIGNERS.serving, usages)), 'DNS or IP subjectAltName is required')
    assert.equal(failure(await submit({ ...node, dns: ['n1'], emails: ['n1@example.com'] }, SIGNERS.serving, usages)), 'Email subjectAltNames are not allowed')
    assert.equal(failure(await submit({ ...node, dns: ['n1'] }, SIGNERS.serving, ['client auth'])), 'missing required usage: server auth')
  })

  it('leaves requests of other signers, pending and denied ones alone', async () => {
    const req = await certificateRequest({ cn: 'x' })
    const mk = async (name: string, signerName: string) =>
      (await app().request({ method: 'POST', url, payload: { metadata: { name }, spec: { request: req.b64, signerName, usages: ['client auth'] } } })).json()
    const other = await mk('other', 'example.com/signer')
    await app().request({ method: 'PUT', url: `${url}/other/approval`, payload: { ...other, status: { conditions: [{ type: 'Approved', status: 'True' }] } } })
    await mk('pending', SIGNERS.client)
    const denied = await mk('denied', SIGNERS.client)
    await app().request({ method: 'PUT', url: `${url}/denied/approval`, payload: { ...denied, status: { conditions: [{ type: 'Denied', status: 'True' }] } } })
    // A later request is signed, so the controller has passed over these three.
    issued(await submit({ cn: 'later' }, SIGNERS.client, ['client auth']))
    for (const name of ['other', 'pending', 'denied']) {
      const csr = (await app().request({ method: 'GET', url: `${url}/${name}` })).json()
      assert.equal(csr.status?.certificate, undefined, name)
      assert.ok(!csr.status?.conditions?.some((c: { type: string }) => c.type === 'Failed'), name)
    }
  })
})
