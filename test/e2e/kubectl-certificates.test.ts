// kubectl's certificate commands end to end: a user's request listed with `kubectl get csr`,
// approved with `kubectl certificate approve`, signed by the cluster CA, and the user connecting
// with the issued certificate, named by `kubectl auth whoami`; `kubectl certificate deny`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { readFileSync, writeFileSync } from 'node:fs'
import { startServer } from '../helpers/server.js'
import { kubectlFor } from '../helpers/kubectl.js'
import { certificateRequest } from '../helpers/csr.js'
import { eventually } from '../helpers/eventually.js'
import { writeKubeconfig } from '../../auth/pki.js'

test('an admin approves a user\'s client certificate with kubectl and the user connects with it', async (t) => {
  const server = await startServer(t)
  const kubectl = (config: string, ...args: string[]) => kubectlFor({ kubeconfig: config }).ok(args)
  const admin = (...args: string[]) => kubectl(server.kubeconfig, ...args)

  const jane = await certificateRequest({ cn: 'jane', o: ['devs'] })
  const manifest = (name: string, request: string) => {
    const path = join(server.dataDir, `${name}.yaml`)
    writeFileSync(path, `apiVersion: certificates.svc.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: ${name}\nspec:\n  request: ${request}\n  signerName: svc.io/svc-apiserver-client\n  expirationSeconds: 86400\n  usages: [client auth]\n`)
    return path
  }
  assert.match(await admin('create', '-f', manifest('jane', jane.b64)), /certificatesigningrequest.certificates.svc.io\/jane created/)
  assert.match(await admin('get', 'csr'), /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\n/)
  assert.match(await admin('get', 'csr', 'jane'), /^jane\s+\d+s\s+svc\.io\/svc-apiserver-client\s+admin\s+24h\s+Pending$/m)

  assert.match(await admin('certificate', 'approve', 'jane'), /certificatesigningrequest.certificates.k8s.io\/jane approved/)
  const certificate = await eventually(async () => {
    const b64 = await admin('get', 'csr', 'jane', '-o', 'jsonpath={.status.certificate}')
    assert.notEqual(b64, '')
    return Buffer.from(b64, 'base64').toString()
  })
  assert.match(await admin('get', 'csr', 'jane'), /Approved,Issued$/m)

  const janeConfig = join(server.dataDir, 'jane.kubeconfig')
  writeKubeconfig(janeConfig, { server: server.server, caCertPem: readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8'), clientCertPem: certificate, clientKeyPem: jane.keyPem, user: 'jane' })
  const whoami = await kubectl(janeConfig, 'auth', 'whoami')
  assert.match(whoami, /Username\s+jane/)
  assert.match(whoami, /Groups\s+\[devs system:authenticated\]/)
  // Only what RBAC grants: jane may not list namespaces.
  await assert.rejects(kubectl(janeConfig, 'get', 'ns'), /User "jane" cannot list resource "namespaces"/)

  const mallory = await certificateRequest({ cn: 'mallory' })
  await admin('create', '-f', manifest('mallory', mallory.b64))
  assert.match(await admin('certificate', 'deny', 'mallory'), /certificatesigningrequest.certificates.k8s.io\/mallory denied/)
  assert.match(await admin('get', 'csr', 'mallory'), /Denied$/m)
  assert.equal(await admin('get', 'csr', 'mallory', '-o', 'jsonpath={.status.certificate}'), '')
})

test('a node certificate authenticates as system:node:<name> in system:nodes', async (t) => {
  const server = await startServer(t)
  const kubectl = (config: string, ...args: string[]) => kubectlFor({ kubeconfig: config }).ok(args)
  const node = await certificateRequest({ cn: 'system:node:n1', o: ['system:nodes'] })
  const path = join(server.dataDir, 'n1.yaml')
  writeFileSync(path, `apiVersion: certificates.svc.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: n1\nspec:\n  request: ${node.b64}\n  signerName: svc.io/svc-apiserver-client-svclet\n  usages: [key encipherment, digital signature, client auth]\n`)
  await kubectl(server.kubeconfig, 'create', '-f', path)
  await kubectl(server.kubeconfig, 'certificate', 'approve', 'n1')
  const certificate = await eventually(async () => {
    const b64 = await kubectl(server.kubeconfig, 'get', 'csr', 'n1', '-o', 'jsonpath={.status.certificate}')
    assert.notEqual(b64, '')
    return Buffer.from(b64, 'base64').toString()
  })
  const config = join(server.dataDir, 'n1.kubeconfig')
  writeKubeconfig(config, { server: server.server, caCertPem: readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8'), clientCertPem: certificate, clientKeyPem: node.keyPem, user: 'n1' })
  const whoami = await kubectl(config, 'auth', 'whoami', '-o', 'json')
  assert.deepEqual(JSON.parse(whoami).status.userInfo, { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] })
})
