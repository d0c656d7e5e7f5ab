// Patroni (Debian's `patroni`) keeps a three-member PostgreSQL cluster with its Kubernetes store on
// this server, as a new user would set it up: ConfigMaps for its keys (`use_endpoints: false`), its
// members' Pods for their state, a token user with the Role Patroni's documentation gives. It
// bootstraps, elects one leader with both replicas streaming, fails over when the leader's node
// dies (Patroni and its PostgreSQL SIGKILLed), and switches over with `patronictl switchover`. The
// server refuses none of its requests but the 409s of its races (two members creating one key,
// a write with a stale resourceVersion).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { stringify } from 'yaml'
import { startTestServer } from '../helpers/tls-app.js'
import { USERS } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { writeUserKubeconfig } from '../helpers/kubectl.js'
import { GROUPS } from '../../resources/naming.js'

/** The newest PostgreSQL of Debian's layout (`/usr/lib/postgresql/<major>/bin`) with the programs Patroni runs. */
function postgresBinDir (): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const majors = readdirSync(root).filter(v => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
  const dir = majors.map(v => join(root, v, 'bin')).find(d => ['initdb', 'pg_ctl', 'postgres', 'pg_basebackup'].every(p => existsSync(join(d, p))))
  return dir
}

/** PostgreSQL refuses to run as root: as root, Patroni runs as the `postgres` system user. */
function runAs (): { uid: number, gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find(l => l.startsWith('postgres:'))
  if (line === undefined) return undefined
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

const hasPatroni = spawnSync('patroni', ['--version'], { stdio: 'ignore' }).status === 0 &&
  spawnSync('patronictl', ['version', '--help'], { stdio: 'ignore' }).status === 0
const BIN_DIR = postgresBinDir()
const USER = runAs()
const skip = !hasPatroni
  ? 'patroni is not installed (Debian: apt-get install patroni)'
  : BIN_DIR === undefined
    ? 'no PostgreSQL server programs under /usr/lib/postgresql/<major>/bin'
    : process.getuid?.() === 0 && USER === undefined
      ? 'running as root and there is no postgres user to run PostgreSQL as'
      : false

/** `n` distinct free ports: all held open until each is chosen, so none comes twice. */
async function freePorts (n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer())
  await Promise.all(servers.map(s => new Promise<void>(resolve => s.listen(0, '127.0.0.1', resolve))))
  const ports = servers.map(s => (s.address() as { port: number }).port)
  await Promise.all(servers.map(s => new Promise(resolve => s.close(resolve))))
  return ports
}

const SCOPE = 'pg-e2e'
const NS = 'patroni'
const NAMES = ['m1', 'm2', 'm3'] as const
const PASSWORD = 'patroni-e2e'

interface Member {
  name: string
  pgPort: number
  restPort: number
  dataDir: string
  config: string
  process?: ChildProcess
  log: string
}

test('patroni: bootstrap, one leader, failover, switchover', { skip, timeout: 300_000 }, async (t) => {
  // Every answer of 400 and more to Patroni's user (bob), to hold against the races it expects.
  const refused: string[] = []
  const server = await startTestServer(t, { authorizationModes: ['RBAC'] }, {
    beforeReady: (app) => app.addHook('onResponse', async (request, reply) => {
      if (reply.statusCode >= 400 && request.user?.username === 'bob') refused.push(`${request.method} ${request.url} ${reply.statusCode}`)
    })
  })
  const call = async (method: 'GET' | 'POST', url: string, payload?: object): Promise<any> => {
    const res = await server.request({ method, url, payload })
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
    return res.json()
  }

  const dir = mkdtempSync(join(tmpdir(), 'patroni-e2e-'))
  const members: Member[] = []
  t.after(async () => {
    for (const m of members) {
      if (m.process !== undefined && m.process.exitCode === null && m.process.signalCode === null) m.process.kill('SIGKILL')
    }
    // Patroni starts PostgreSQL in a session of its own: stop each member's postmaster by its pid.
    for (const m of members) await stopPostmaster(m.dataDir, 'SIGQUIT')
    rmSync(dir, { recursive: true, force: true })
  })
  const own = (path: string): void => { if (USER !== undefined) chownSync(path, USER.uid, USER.gid) }
  own(dir)

  // What a new user sets up: a namespace, Patroni's Role bound to its user, a Pod per member.
  await call('POST', '/api/v1/namespaces', { metadata: { name: NS } })
  const rbac = `/apis/${GROUPS.rbac}/v1/namespaces/${NS}`
  await call('POST', `${rbac}/roles`, {
    metadata: { name: 'patroni' },
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list', 'patch', 'update', 'watch', 'delete', 'deletecollection'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'patch', 'update', 'watch'] }
    ]
  })
  await call('POST', `${rbac}/rolebindings`, {
    metadata: { name: 'patroni' },
    roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'patroni' },
    subjects: [{ apiGroup: GROUPS.rbac, kind: 'User', name: 'bob' }]
  })
  for (const name of NAMES) {
    // The ServiceAccount admission plugin waits for the namespace's default ServiceAccount.
    await eventually(() => call('POST', `/api/v1/namespaces/${NS}/pods`, {
      metadata: { name, labels: { application: 'patroni', 'cluster-name': SCOPE } },
      spec: { containers: [{ name: 'postgres', image: 'postgres' }] }
    }), 30_000, 250)
  }
  const kubeconfig = writeUserKubeconfig(join(dir, 'kubeconfig'), { server: server.url, caPem: readFileSync(join(server.dir, 'pki', 'ca.crt'), 'utf8'), name: 'patroni', user: { token: USERS.bob.token } })
  own(kubeconfig)

  const ports = await freePorts(2 * NAMES.length)
  for (const [i, name] of NAMES.entries()) {
    const m: Member = { name, pgPort: ports[2 * i]!, restPort: ports[2 * i + 1]!, dataDir: join(dir, name), config: join(dir, `${name}.yml`), log: '' }
    writeFileSync(m.config, stringify({
      scope: SCOPE,
      name,
      log: { level: 'INFO' },
      restapi: { listen: `127.0.0.1:${m.restPort}`, connect_address: `127.0.0.1:${m.restPort}` },
      kubernetes: { namespace: NS, labels: { application: 'patroni' }, use_endpoints: false, pod_ip: '127.0.0.1', context: 'patroni' },
      bootstrap: {
        dcs: {
          ttl: 20,
          loop_wait: 2,
          retry_timeout: 5,
          maximum_lag_on_failover: 1048576,
          postgresql: { use_pg_rewind: true, parameters: { wal_level: 'replica', hot_standby: 'on', wal_log_hints: 'on', max_wal_senders: 10, max_replication_slots: 10, shared_buffers: '16MB', fsync: 'off' } }
        },
        initdb: [{ encoding: 'UTF8' }, 'no-sync']
      },
      postgresql: {
        listen: `127.0.0.1:${m.pgPort}`,
        connect_address: `127.0.0.1:${m.pgPort}`,
        data_dir: m.dataDir,
        bin_dir: BIN_DIR,
        pgpass: join(dir, `pgpass-${name}`),
        authentication: {
          superuser: { username: 'postgres', password: PASSWORD },
          replication: { username: 'replicator', password: PASSWORD },
          rewind: { username: 'rewinder', password: PASSWORD }
        },
        parameters: { unix_socket_directories: dir },
        pg_hba: ['local all all trust', 'host replication replicator 127.0.0.1/32 md5', 'host all all 127.0.0.1/32 md5']
      },
      watchdog: { mode: 'off' }
    }))
    own(m.config)
    members.push(m)
  }
  const env = { ...process.env, KUBECONFIG: kubeconfig, HOME: dir }
  const start = (m: Member): void => {
    const child = spawn('patroni', [m.config], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], ...USER })
    const keep = (d: Buffer): void => { m.log = (m.log + d.toString()).slice(-20_000) }
    child.stdout!.on('data', keep)
    child.stderr!.on('data', keep)
    m.process = child
  }
  for (const m of members) start(m)

  const byName = (name: string): Member => members.find(m => m.name === name)!
  const diagnostics = (): string => members.map(m => `--- ${m.name} (last lines)\n${m.log.split('\n').slice(-15).join('\n')}`).join('\n') +
    `\n--- refused: ${JSON.stringify(refused)}`
  /** Polls `check` every half second until it returns a value; the timeouts are for a slow machine, never assertions of speed. */
  const until = async <T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = await check()
      if (value !== undefined) return value
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s\n${diagnostics()}`)
      await new Promise(resolve => setTimeout(resolve, 500))
    }
  }
  /** A member's own view (Patroni's REST API): role, state and, on the primary, who streams from it. */
  const status = async (m: Member): Promise<any> => {
    try {
      const res = await fetch(`http://127.0.0.1:${m.restPort}/patroni`, { signal: AbortSignal.timeout(3_000) })
      return await res.json()
    } catch {
      return undefined
    }
  }
  const isPrimary = (s: any): boolean => s?.role === 'master' || s?.role === 'primary'
  /** The leader key as the server holds it: the `leader` annotation of the `<scope>-leader` ConfigMap. */
  const leaderKey = async (): Promise<string | undefined> => {
    const res = await server.request({ method: 'GET', url: `/api/v1/namespaces/${NS}/configmaps/${SCOPE}-leader` })
    return res.statusCode === 200 ? res.json().metadata.annotations?.leader ?? undefined : undefined
  }
  /** The member holding the leader key, running as primary, with each of `followers` streaming from it. */
  const leaderWith = (followers: (leader: string) => string[]) => async (): Promise<string | undefined> => {
    const leader = await leaderKey()
    if (leader === undefined) return undefined
    const s = await status(byName(leader))
    if (!isPrimary(s)) return undefined
    const streaming = new Set((s.replication ?? []).filter((r: any) => r.state === 'streaming').map((r: any) => r.application_name))
    return followers(leader).every(f => streaming.has(f)) ? leader : undefined
  }
  const sql = async (m: Member, text: string): Promise<any[]> => {
    const client = new pg.Client({ host: '127.0.0.1', port: m.pgPort, user: 'postgres', password: PASSWORD, database: 'postgres', connectionTimeoutMillis: 5_000 })
    await client.connect()
    try {
      return (await client.query(text)).rows
    } finally {
      await client.end()
    }
  }
  const onlyPrimary = async (alive: Member[], leader: string): Promise<void> => {
    for (const m of alive) {
      const s = await status(m)
      assert.equal(isPrimary(s), m.name === leader, `${m.name} reports role ${s?.role} while ${leader} leads\n${diagnostics()}`)
    }
  }

  // Bootstrap: one member initialises the cluster and takes the leader key; the others clone it and stream.
  const first = await until('leader with both replicas streaming', leaderWith(l => NAMES.filter(n => n !== l)), 120_000)
  await onlyPrimary(members, first)
  await sql(byName(first), 'CREATE TABLE e2e (v text); INSERT INTO e2e VALUES (\'bootstrap\')')
  for (const m of members.filter(m => m.name !== first)) {
    await until(`row replicated to ${m.name}`, async () => (await sql(m, 'SELECT v FROM e2e').catch(() => [])).length === 1 ? true : undefined, 30_000)
  }

  // Failover: the leader's node dies (Patroni and its PostgreSQL SIGKILLed); once its key expires
  // (ttl 20 s) a replica takes it, promotes, and the other replica follows the new leader.
  const dead = byName(first)
  dead.process!.kill('SIGKILL')
  await stopPostmaster(dead.dataDir, 'SIGKILL')
  const alive = members.filter(m => m !== dead)
  const second = await until('new leader after the failover', leaderWith(l => alive.map(m => m.name).filter(n => n !== l)), 90_000)
  assert.notEqual(second, first)
  await onlyPrimary(alive, second)
  assert.deepEqual(await sql(byName(second), 'SELECT pg_is_in_recovery() AS r, (SELECT count(*)::int FROM e2e) AS n'), [{ r: false, n: 1 }])
  await sql(byName(second), 'INSERT INTO e2e VALUES (\'failover\')')

  // Switchover with patronictl to the other survivor; the former leader comes back as its replica.
  const candidate = alive.find(m => m.name !== second)!.name
  const out = await new Promise<{ code: number, text: string }>((resolve) => {
    execFile('patronictl', ['-c', byName(candidate).config, 'switchover', '--leader', second, '--candidate', candidate, '--force'],
      { env, timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err === null ? 0 : (typeof err.code === 'number' ? err.code : 1), text: stdout + stderr }))
  })
  assert.equal(out.code, 0, `patronictl switchover: ${out.text}\n${diagnostics()}`)
  assert.match(out.text, new RegExp(`Successfully switched over to "${candidate}"`))
  // (The leader cannot stream from itself: this waits for the key to move and the old leader to follow.)
  const third = await until(`${candidate} leading with ${second} streaming from it`, leaderWith(() => [second]), 90_000)
  assert.equal(third, candidate)
  await onlyPrimary(alive, candidate)
  assert.deepEqual(await sql(byName(candidate), 'SELECT v FROM e2e ORDER BY v'), [{ v: 'bootstrap' }, { v: 'failover' }])

  // Patroni's only refusals: 409s of its own races (creating a key another member created, a stale resourceVersion).
  assert.deepEqual(refused.filter(r => !r.endsWith(' 409')), [], diagnostics())
})

/** Stops the postmaster of `dataDir` (its pid from postmaster.pid, checked against /proc) and waits until it is gone. */
async function stopPostmaster (dataDir: string, signal: NodeJS.Signals): Promise<void> {
  let pid: number
  try {
    pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir)) return
  } catch {
    return
  }
  const alive = (): boolean => { try { process.kill(pid, 0); return true } catch { return false } }
  try { process.kill(pid, signal) } catch { return }
  const deadline = Date.now() + 15_000
  while (alive() && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 100))
  if (alive()) process.kill(pid, 'SIGKILL')
}
