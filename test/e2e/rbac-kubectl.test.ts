// The RBAC story with the real HTTPS server and kubectl 1.31: an admin sets up a namespace, a
// Role and a RoleBinding for token user alice; alice can do exactly that, `kubectl auth can-i`
// agrees, and alice cannot grant herself more.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { stringify } from 'yaml'
import { buildApp } from '../../server/app.js'
import { parseFlags } from '../../bin/flags.js'
import { ensureCertificates, writeKubeconfig } from '../../auth/pki.js'
import { freshDatabase } from '../helpers/postgres.js'
import { USERS } from '../helpers/app.js'

const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.31'

interface Run { code: number, stdout: string, stderr: string }

describe('RBAC with kubectl', { skip: existsSync(KUBECTL) ? false : `${KUBECTL} is not installed` }, () => {
  let app: FastifyInstance
  let adminConfig: string
  let aliceConfig: string
  const cleanups: Array<() => unknown> = []

  const kubectl = (config: string, ...args: string[]): Promise<Run> => new Promise((resolve) => {
    execFile(KUBECTL, ['--kubeconfig', config, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : (typeof err.code === 'number' ? err.code : 1), stdout, stderr })
    })
  })
  const admin = (...args: string[]) => kubectl(adminConfig, ...args)
  const alice = (...args: string[]) => kubectl(aliceConfig, ...args)
  const ok = (r: Run): Run => { assert.equal(r.code, 0, r.stderr); return r }

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rbac-e2e-'))
    const databaseUrl = await freshDatabase({ after: (fn) => { cleanups.push(fn) } })
    const pki = await ensureCertificates(dir)
    const tokenAuthFile = join(dir, 'tokens.csv')
    writeFileSync(tokenAuthFile, Object.values(USERS).map(u => u.line).join('\n') + '\n')
    // The server's own defaults: --authorization-mode=Node,RBAC and --anonymous-auth=true.
    const flags = parseFlags([])
    app = await buildApp({
      databaseUrl, compactionIntervalMs: 0, tokenAuthFile,
      tls: { cert: pki.servingCertPem, key: pki.servingKeyPem, clientCA: pki.caCertPem },
      authorizationModes: flags.authorizationModes, anonymousAuth: flags.anonymousAuth
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const server = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    adminConfig = join(dir, 'admin.kubeconfig')
    writeKubeconfig(adminConfig, { server, caCertPem: pki.caCertPem, clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem })
    aliceConfig = join(dir, 'alice.kubeconfig')
    writeFileSync(aliceConfig, stringify({
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, 'certificate-authority-data': Buffer.from(pki.caCertPem).toString('base64') } }],
      users: [{ name: 'alice', user: { token: USERS.alice.token } }],
      contexts: [{ name: 'alice', context: { cluster: 'c', user: 'alice' } }],
      'current-context': 'alice'
    }))
  })
  after(async () => {
    await app?.close()
    for (const fn of cleanups.reverse()) await fn()
  })

  it('lets the admin set up a namespace, a Role and a RoleBinding', async () => {
    ok(await admin('create', 'namespace', 'team'))
    ok(await admin('create', 'role', 'cm-editor', '-n', 'team', '--verb=get,list,create,delete', '--resource=configmaps'))
    ok(await admin('create', 'rolebinding', 'alice-cm', '-n', 'team', '--role=cm-editor', '--user=alice'))
    const listed = ok(await admin('get', 'rolebindings', '-n', 'team'))
    assert.match(listed.stdout, /alice-cm\s+Role\/cm-editor/)
  })

  it('lets alice do exactly what the role grants', async () => {
    ok(await alice('create', 'configmap', 'a', '-n', 'team', '--from-literal=k=v'))
    assert.match(ok(await alice('get', 'configmaps', '-n', 'team')).stdout, /^a\s+1\s/m)
    assert.match(ok(await alice('get', 'configmap', 'a', '-n', 'team', '-o', 'jsonpath={.data.k}')).stdout, /^v$/)
    ok(await alice('delete', 'configmap', 'a', '-n', 'team'))
  })

  it('answers alice 403 elsewhere', async () => {
    const secrets = await alice('get', 'secrets', '-n', 'team')
    assert.notEqual(secrets.code, 0)
    assert.match(secrets.stderr, /Error from server \(Forbidden\): secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team"/)
    const other = await alice('get', 'configmaps', '-n', 'default')
    assert.match(other.stderr, /configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"/)
    const label = await alice('label', 'namespace', 'team', 'x=y')
    assert.match(label.stderr, /Forbidden/)
  })

  it('agrees with kubectl auth can-i', async () => {
    const checks: Array<[string[], boolean]> = [
      [['create', 'configmaps', '-n', 'team'], true],
      [['delete', 'configmaps/a', '-n', 'team'], true],
      [['update', 'configmaps', '-n', 'team'], false],
      [['get', 'secrets', '-n', 'team'], false],
      [['list', 'configmaps', '-n', 'default'], false],
      [['create', 'selfsubjectaccessreviews'], true]
    ]
    for (const [args, want] of checks) {
      const r = await alice('auth', 'can-i', ...args)
      assert.equal(r.stdout.trim().split(/\s/)[0], want ? 'yes' : 'no', `${args.join(' ')}: ${r.stdout}${r.stderr}`)
      assert.equal(r.code, want ? 0 : 1)
    }
    const listed = ok(await alice('auth', 'can-i', '--list', '-n', 'team'))
    assert.match(listed.stdout, /^configmaps\s+\[\]\s+\[\]\s+\[get list create delete\]/m)
  })

  it('stops alice from granting herself more', async () => {
    const role = await alice('create', 'role', 'sneaky', '-n', 'team', '--verb=get', '--resource=secrets')
    assert.match(role.stderr, /roles\.[^ ]+ is forbidden: User "alice" cannot create resource "roles"/)

    // Even allowed to manage roles and bindings, she cannot grant rules she does not hold.
    ok(await admin('create', 'role', 'rbac-manager', '-n', 'team', '--verb=get,list,create,update,patch,delete', '--resource=roles,rolebindings'))
    ok(await admin('create', 'rolebinding', 'alice-rbac', '-n', 'team', '--role=rbac-manager', '--user=alice'))
    const escalate = await alice('create', 'role', 'sneaky', '-n', 'team', '--verb=get', '--resource=secrets')
    assert.notEqual(escalate.code, 0)
    assert.match(escalate.stderr, /is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}/)
    const bind = await alice('create', 'rolebinding', 'alice-admin', '-n', 'team', '--clusterrole=cluster-admin', '--user=alice')
    assert.match(bind.stderr, /is attempting to grant RBAC permissions not currently held/)
    ok(await alice('create', 'role', 'cm-reader', '-n', 'team', '--verb=get', '--resource=configmaps'))
    assert.match((await alice('auth', 'can-i', 'get', 'secrets', '-n', 'team')).stdout, /^no/)
  })
})
