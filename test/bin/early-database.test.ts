// On a data directory that already holds a cluster, the entry starts the embedded PostgreSQL
// before it loads the rest of the server (bin/server.ts): a command line refused afterwards
// stops that database, and an accepted one serves on it (a start stopped by a signal:
// signalled-start.test.ts).
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
import { EMBEDDED_ENV as ENV, endsWithin, STOP_BOUND_MS } from '../helpers/signalled-start.js'

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

})
