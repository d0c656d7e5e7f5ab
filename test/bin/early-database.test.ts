// On a data directory that already holds a cluster, the entry starts the embedded PostgreSQL
// before it loads the rest of the server (bin/server.ts): a command line refused afterwards
// stops that database, and an accepted one serves on it.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { parse } from 'yaml'
import { startEmbeddedPostgres } from '../../storage/embedded.js'
import { serverCommand } from '../helpers/built-server.js'

/** The embedded database, not the test run's DATABASE_URL. */
const ENV = { ...process.env, DATABASE_URL: '' }

function readyz (kubeconfig: string): Promise<number> {
  const cfg = parse(readFileSync(kubeconfig, 'utf8'))
  const pem = (b64: string): string => Buffer.from(b64, 'base64').toString()
  return new Promise((resolve, reject) => {
    const req = request(`${cfg.clusters[0].cluster.server as string}/readyz`, {
      ca: pem(cfg.clusters[0].cluster['certificate-authority-data']),
      cert: pem(cfg.users[0].user['client-certificate-data']),
      key: pem(cfg.users[0].user['client-key-data'])
    }, (res) => { res.resume(); resolve(res.statusCode!) })
    req.on('error', reject)
    req.end()
  })
}

/** Far longer than any stop takes here (under 1 s), far shorter than the file's own limit. */
const STOP_BOUND_MS = 45_000

/** `ended`, or a failure that says why it did not end in time (`onLate` ends it and explains). */
async function endsWithin<T> (ended: Promise<T>, ms: number, onLate: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(onLate())), ms) })
  try {
    return await Promise.race([ended, late])
  } finally {
    clearTimeout(timer)
  }
}

describe('the embedded PostgreSQL started before the flags are all read', () => {
  let dir: string
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'early-database-'))
    // A cluster from an earlier start: only then does the entry start it early.
    await (await startEmbeddedPostgres(dir)).stop()
  })
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('is stopped when the command line is refused, and the refusal is the one line said', () => {
    const { command, args, cwd } = serverCommand(['--data-dir', dir, '--secure-port', '0', '--no-such-flag'])
    const run = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 60_000, env: ENV })
    assert.equal(run.status, 2, run.stderr)
    assert.equal(run.stderr, 'error: unknown flag: --no-such-flag\n')
    // A clean stop removes the postmaster's lock file; a database left running keeps it.
    assert.equal(existsSync(join(dir, 'postgres', 'postmaster.pid')), false)
  })

  it('is the database the server then serves on, ready and stopped cleanly with it', async () => {
    const { command, args, cwd } = serverCommand(['--data-dir', dir, '--secure-port', '0', '--log-level', 'warn'])
    const child = spawn(command, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    let stdout = ''
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    const exited = new Promise<number | null>(resolve => child.once('exit', resolve))
    try {
      const kubeconfig = join(dir, 'admin.kubeconfig')
      const deadline = Date.now() + 60_000
      while (!existsSync(kubeconfig)) {
        assert.equal(child.exitCode, null, stderr)
        assert.ok(Date.now() < deadline, `not started: ${stderr}`)
        await new Promise(resolve => setTimeout(resolve, 100))
      }
      assert.equal(await readyz(kubeconfig), 200)
    } finally {
      child.kill('SIGTERM')
    }
    assert.equal(await endsWithin(exited, STOP_BOUND_MS, () => { child.kill('SIGKILL'); return `the stop did not end within ${STOP_BOUND_MS / 1000} s; its log:\n${stdout}${stderr}` }), 0, stderr)
    assert.equal(stderr, '')
    assert.equal(existsSync(join(dir, 'postgres', 'postmaster.pid')), false)
  })

  /** Starts the server on `dataDir` and sends SIGTERM after `delayMs` (or once `when` holds): how it ended, and what it wrote. */
  async function signalledStart (dataDir: string, delayMs: number, when?: () => boolean): Promise<{ code: number | null, signal: NodeJS.Signals | null, stderr: string, logged: string[] }> {
    const { command, args, cwd } = serverCommand(['--data-dir', dataDir, '--secure-port', '0', '--log-level', 'debug'])
    const child = spawn(command, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    let stdout = ''
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    const exited = new Promise<[number | null, NodeJS.Signals | null]>(resolve => child.once('exit', (code, signal) => resolve([code, signal])))
    await new Promise(resolve => setTimeout(resolve, delayMs))
    for (let waited = 0; when !== undefined && !when() && child.exitCode === null && waited < 120_000; waited += 20) {
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    child.kill('SIGTERM')
    const [code, signal] = await endsWithin(exited, STOP_BOUND_MS, () => {
      child.kill('SIGKILL')
      return `a start signalled after ${delayMs} ms did not end within ${STOP_BOUND_MS / 1000} s; its log:\n${stdout}${stderr}`
    })
    // Logged at debug, so that a start that does not end says how far it got; what the test
    // reads is its warnings and errors (pino's levels 40 and up). The ready line is plain text.
    const logged = stdout.split('\n').filter(line => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 40)
    return { code, signal, stderr, logged }
  }

  it('stopped by SIGTERM during a first start, once its new database runs, leaves no database running', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'first-start-'))
    try {
      // After initdb, the first start of the database: the app is still to be built.
      const { code, signal, stderr } = await signalledStart(fresh, 0, () => existsSync(join(fresh, 'postgres', 'postmaster.pid')))
      assert.ok(code === 143 || code === 0, `exit ${code} ${signal}: ${stderr}`)
      assert.equal(stderr, '')
      assert.equal(existsSync(join(fresh, 'postgres', 'postmaster.pid')), false, 'the database is stopped')
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  })

  it('stopped by SIGTERM at any point of its start, stops its database and ends as the signal says, with no error or warning', async () => {
    for (const delayMs of [150, 400, 700, 1000, 1400, 1800]) {
      const { code, signal, stderr, logged } = await signalledStart(dir, delayMs)
      // Before the entry's handler: Node's default (killed by the signal); during the start:
      // 143; once serving: the graceful stop's 0.
      assert.ok(signal === 'SIGTERM' || code === 143 || code === 0, `after ${delayMs} ms: exit ${code} ${signal}: ${stderr}`)
      assert.equal(stderr, '', `after ${delayMs} ms`)
      // The database stops under the start: what then fails of it is the stop, not news.
      assert.deepEqual(logged, [], `after ${delayMs} ms`)
      assert.equal(existsSync(join(dir, 'postgres', 'postmaster.pid')), false, `after ${delayMs} ms the database is stopped`)
    }
  })
})
