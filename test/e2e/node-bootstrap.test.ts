// Node bootstrap end to end, as kubeadm join does it over HTTPS: the joining node reads
// cluster-info anonymously, trusts it only once the bootstrap signer's detached JWS verifies
// under its token, asks for a node client certificate with that token, gets it approved and
// signed by the controllers, and reaches the API as system:node:<name>.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { Agent, request } from 'undici'
import { startServer } from '../helpers/server.js'
import { kubectlFor } from '../helpers/kubectl.js'
import { certificateRequest } from '../helpers/csr.js'
import { eventually } from '../helpers/eventually.js'
import { writeKubeconfig } from '../../auth/pki.js'

const TOKEN_ID = 'j01n3d'
const TOKEN_SECRET = 'q7w8e9r0t1y2u3i4'
const TOKEN = `${TOKEN_ID}.${TOKEN_SECRET}`

/** The joining side's own check of a detached HS256 JWS (written apart from the server's). */
function verifiedByToken (content: string, jws: string, token: string): boolean {
  const [header, payload, signature] = jws.split('.')
  if (payload !== '' || header === undefined || signature === undefined) return false
  if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'HS256') return false
  const mac = createHmac('sha256', token).update(`${header}.${Buffer.from(content).toString('base64url')}`).digest('base64url')
  return mac === signature
}

test('a bootstrap token joins a node: cluster-info verified, certificate issued automatically, API reached as the node', async (t) => {
  const server = await startServer(t, ['--enable-bootstrap-token-auth', '--anonymous-auth=true', '--controllers', '*,bootstrapsigner'])
  const kubectl = (config: string, ...args: string[]) => kubectlFor({ kubeconfig: config }).ok(args)
  const admin = (...args: string[]) => kubectl(server.kubeconfig, ...args)
  const caPem = readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8')

  // What the cluster's operator does once (kubeadm init): the token, cluster-info and its public read.
  await admin('create', 'secret', 'generic', `bootstrap-token-${TOKEN_ID}`, '-n', 'svc-system', '--type', 'bootstrap.svc.io/token',
    `--from-literal=token-id=${TOKEN_ID}`, `--from-literal=token-secret=${TOKEN_SECRET}`,
    '--from-literal=usage-bootstrap-authentication=true', '--from-literal=usage-bootstrap-signing=true')
  const clusterKubeconfig = `apiVersion: v1\nkind: Config\nclusters:\n- name: ''\n  cluster:\n    server: ${server.server}\n    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}\n`
  await admin('create', 'configmap', 'cluster-info', '-n', 'svc-public', `--from-literal=kubeconfig=${clusterKubeconfig}`)
  await admin('create', 'role', 'bootstrap-signer-clusterinfo', '-n', 'svc-public', '--verb=get', '--resource=configmaps', '--resource-name=cluster-info')
  await admin('create', 'rolebinding', 'bootstrap-signer-clusterinfo', '-n', 'svc-public', '--role=bootstrap-signer-clusterinfo', '--user=system:anonymous')

  // The joining node trusts nothing yet: it reads without verifying TLS, then checks the JWS.
  const insecure = new Agent({ connect: { rejectUnauthorized: false } })
  t.after(() => insecure.close())
  const clusterInfo = await eventually(async () => {
    const res = await request(`${server.server}/api/v1/namespaces/svc-public/configmaps/cluster-info`, { dispatcher: insecure })
    const body = await res.body.json() as { data: Record<string, string> }
    assert.equal(res.statusCode, 200, JSON.stringify(body))
    assert.ok(body.data[`jws-kubeconfig-${TOKEN_ID}`], 'the bootstrap signer has signed cluster-info')
    return body.data
  })
  assert.ok(verifiedByToken(clusterInfo.kubeconfig!, clusterInfo[`jws-kubeconfig-${TOKEN_ID}`]!, TOKEN))
  assert.ok(!verifiedByToken(clusterInfo.kubeconfig!, clusterInfo[`jws-kubeconfig-${TOKEN_ID}`]!, `${TOKEN_ID}.0000000000000000`))
  const trustedCa = Buffer.from(parse(clusterInfo.kubeconfig!).clusters[0].cluster['certificate-authority-data'], 'base64').toString()

  // Now with TLS verified against the CA cluster-info gave, and the token as the credential.
  const trusted = new Agent({ connect: { ca: trustedCa } })
  t.after(() => trusted.close())
  const csr = await certificateRequest({ cn: 'system:node:n1', o: ['system:nodes'] })
  const created = await request(`${server.server}/apis/certificates.svc.io/v1/certificatesigningrequests`, {
    method: 'POST',
    dispatcher: trusted,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { generateName: 'node-csr-' }, spec: { request: csr.b64, signerName: 'svc.io/svc-apiserver-client-svclet', usages: ['digital signature', 'client auth'] } })
  })
  const createdBody = await created.body.json() as { metadata: { name: string }, spec: { username: string } }
  assert.equal(created.statusCode, 201, JSON.stringify(createdBody))
  assert.equal(createdBody.spec.username, `system:bootstrap:${TOKEN_ID}`)

  const certificate = await eventually(async () => {
    const res = await request(`${server.server}/apis/certificates.svc.io/v1/certificatesigningrequests/${createdBody.metadata.name}`, { dispatcher: trusted, headers: { authorization: `Bearer ${TOKEN}` } })
    const body = await res.body.json() as { status?: { certificate?: string, conditions?: Array<{ type: string, reason: string }> } }
    assert.equal(res.statusCode, 200, JSON.stringify(body))
    assert.ok(body.status?.certificate, JSON.stringify(body.status))
    assert.equal(body.status.conditions?.find(c => c.type === 'Approved')?.reason, 'AutoApproved')
    return Buffer.from(body.status.certificate, 'base64').toString()
  }, 30_000)

  const nodeConfig = join(server.dataDir, 'n1.kubeconfig')
  writeKubeconfig(nodeConfig, { server: server.server, caCertPem: trustedCa, clientCertPem: certificate, clientKeyPem: csr.keyPem, user: 'n1' })
  const whoami = JSON.parse(await kubectl(nodeConfig, 'auth', 'whoami', '-o', 'json'))
  assert.deepEqual(whoami.status.userInfo, { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] })
  // The Node authorizer lets it register its own Node object.
  const nodeManifest = join(server.dataDir, 'n1.json')
  writeFileSync(nodeManifest, JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }))
  assert.match(await kubectl(nodeConfig, 'create', '-f', nodeManifest), /node\/n1 created/)
})
