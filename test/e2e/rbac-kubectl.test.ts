// The RBAC story with the real HTTPS server and kubectl 1.31: an admin sets up a namespace, a
// Role and a RoleBinding for token user alice; alice can do exactly that, `kubectl auth can-i`
// agrees, and alice cannot grant herself more.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { USERS } from '../helpers/app.js'
import { hasKubectl, kubectlBinary, kubectlFor, writeUserKubeconfig, type KubectlResult as Run } from '../helpers/kubectl.js'

const KUBECTL = '1.31'

describe('RBAC with kubectl', { skip: hasKubectl(KUBECTL) ? false : `${kubectlBinary(KUBECTL)} is not installed` }, () => {
  let adminConfig: string
  let aliceConfig: string
  const cleanups: Array<() => unknown> = []

  const kubectl = (config: string, ...args: string[]) => kubectlFor({ kubeconfig: config, version: KUBECTL }).run(args)
  const admin = (...args: string[]) => kubectl(adminConfig, ...args)
  const alice = (...args: string[]) => kubectl(aliceConfig, ...args)
  const ok = (r: Run): Run => { assert.equal(r.code, 0, r.stderr); return r }

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rbac-e2e-'))
    const tokenAuthFile = join(dir, 'tokens.csv')
    writeFileSync(tokenAuthFile, Object.values(USERS).map(u => u.line).join('\n') + '\n')
    // The server's own defaults: --authorization-mode=Node,RBAC and --anonymous-auth=true.
    const server = await startServer({ after: (fn) => { cleanups.push(fn) } }, ['--token-auth-file', tokenAuthFile])
    adminConfig = server.kubeconfig
    aliceConfig = writeUserKubeconfig(join(dir, 'alice.kubeconfig'), { server: server.server, caPem: server.caPem, name: 'alice', user: { token: USERS.alice.token } })
  })
  after(async () => {
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
