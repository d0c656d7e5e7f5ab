// The container files, checked without a container engine: compose and the balancer's
// configuration validated by their own tools where this machine has them (skipped, with the
// reason, where it does not), and the image's promises read from the Dockerfile.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { parse } from 'yaml'

const ROOT = new URL('../..', import.meta.url).pathname
const has = (cmd: string, ...args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0

test('docker-compose.yml validates with the compose client', (t) => {
  const client = has('docker', 'compose', 'version') ? ['docker', 'compose'] : has('docker-compose', '--version') ? ['docker-compose'] : undefined
  if (client === undefined) return t.skip('no compose client on this machine (docker compose or docker-compose)')
  const run = spawnSync(client[0]!, [...client.slice(1), 'config', '-q'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
})

test('compose runs two replicas sharing one certificate directory behind a balancer, PostgreSQL first', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true })
  const replicas = Object.keys(compose.services).filter(name => name.startsWith('apiserver-'))
  assert.equal(replicas.length, 2)
  for (const name of replicas) {
    const svc = compose.services[name]
    assert.ok(svc.volumes.includes('pki:/pki'), `${name} mounts the shared pki volume`)
    assert.ok(svc.command.includes('--cert-dir'))
    assert.match(svc.healthcheck.test.join(' '), /\/livez/)
  }
  // The second replica waits for the first, which created the shared CA.
  assert.equal(compose.services['apiserver-2'].depends_on['apiserver-1'].condition, 'service_healthy')
  assert.equal(compose.services['apiserver-1'].depends_on.postgres.condition, 'service_healthy')
})

test('the balancer configuration is valid and checks /readyz on every replica', (t) => {
  const cfg = readFileSync(join(ROOT, 'deploy', 'haproxy.cfg'), 'utf8')
  assert.match(cfg, /option httpchk GET \/readyz/)
  assert.match(cfg, /server apiserver-1 /)
  assert.match(cfg, /server apiserver-2 /)
  if (!has('haproxy', '-v')) return t.skip('haproxy is not installed here')
  // The replicas' names resolve only inside compose's network; check the rest as written.
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'haproxy.cfg'), cfg.replace(/apiserver-\d:6443/g, '127.0.0.1:6443'))
  const run = spawnSync('haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr + run.stdout)
})

test('the image builds in one stage and runs from another: production dependencies only, a maintained Node.js LTS, not root', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
  const stages = dockerfile.split(/^FROM /m).slice(1)
  assert.equal(stages.length, 2)
  const runtime = stages[1]!
  assert.match(runtime, /^node:24-/)
  assert.match(runtime, /npm ci [^\n]*--omit=dev[^\n]*--omit=optional/)
  assert.match(runtime, /^USER node$/m)
  assert.doesNotMatch(runtime, /scripts\/build\.mjs/)
  // What the runtime stage installs is what the server imports: nothing for builds or tests.
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  for (const tool of ['typescript', 'tsx', 'esbuild', 'fast-check']) assert.equal(pkg.dependencies[tool], undefined, `${tool} is not a production dependency`)
})
