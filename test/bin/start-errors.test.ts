// A start that cannot go on says, in a sentence or two, what failed, why and what to do: no
// stack trace unless --log-level=debug.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { runServerSync } from '../helpers/server.js'

const NOBODY = 65534

function start (dataDir: string, ...flags: string[]): { status: number | null, stderr: string, stdout: string } {
  const run = runServerSync(['--secure-port', '0', '--data-dir', dataDir, ...flags], { DATABASE_URL: '' })
  return { status: run.status, stderr: run.stderr, stdout: run.stdout }
}

function dataDirWithCluster (t: { after (fn: () => void): void }, uid: number | undefined, version: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'start-errors-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const cluster = join(dir, 'postgres')
  mkdirSync(cluster, { mode: 0o700 })
  writeFileSync(join(cluster, 'PG_VERSION'), `${version}\n`)
  if (uid !== undefined) chownSync(cluster, uid, uid)
  return dir
}

/** The postgres user's uid under root, as the server runs the database as that user. */
function runUid (): number | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' })
  return id.status === 0 ? Number(id.stdout) : undefined
}

describe('a failed start of the embedded database', () => {
  it('names a data directory of another PostgreSQL major version, and what to do', (t) => {
    const dir = dataDirWithCluster(t, runUid(), '9.6')
    const { status, stderr } = start(dir)
    assert.equal(status, 1)
    const lines = stderr.trim().split('\n')
    assert.equal(lines.length, 1, stderr)
    assert.match(lines[0]!, /^error: the embedded PostgreSQL did not start: .*postgres holds a PostgreSQL 9\.6 cluster, and this server ships PostgreSQL 1\d\. .*--storage-url/)
    assert.doesNotMatch(stderr, /^\s+at /m)
  })

  it('names the owner of a cluster directory that belongs to someone else', (t) => {
    if (process.getuid?.() !== 0) {
      t.skip('not root: only root can give a directory to another user')
      return
    }
    const dir = dataDirWithCluster(t, NOBODY, '18')
    const { status, stderr } = start(dir)
    assert.equal(status, 1)
    assert.match(stderr.trim(), /^error: the embedded PostgreSQL did not start: \S+postgres belongs to (user \S+ \()?uid 65534\)?, but PostgreSQL runs as postgres and must own it\. /)
    assert.doesNotMatch(stderr, /^\s+at /m)
  })

  it('shows the stack at debug level', (t) => {
    const dir = dataDirWithCluster(t, runUid(), '9.6')
    const { status, stderr } = start(dir, '--log-level=debug')
    assert.equal(status, 1)
    assert.match(stderr, /^error: the embedded PostgreSQL did not start/)
    assert.match(stderr, /^\s+at /m)
  })
})

describe('a refused audit policy', () => {
  const policies: Record<string, string> = {
    'no rules': 'rules: []\n',
    'a group named *': 'rules:\n- level: Metadata\n  resources:\n  - group: "*"\n',
    'upper-case letters in a group': 'rules:\n- level: Metadata\n  resources:\n  - group: Apps\n    resources: [deployments]\n',
    'resourceNames without resources': 'rules:\n- level: Metadata\n  resources:\n  - group: ""\n    resourceNames: [a]\n'
  }
  for (const [what, rules] of Object.entries(policies)) {
    it(`stops start-up with one line naming it: ${what}`, (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'start-errors-'))
      t.after(() => rmSync(dir, { recursive: true, force: true }))
      const file = join(dir, 'policy.yaml')
      writeFileSync(file, `apiVersion: audit.k8s.io/v1\nkind: Policy\n${rules}`)
      const { status, stderr, stdout } = start(join(dir, 'data'), '--audit-policy-file', file, '--audit-log-path', join(dir, 'audit.log'))
      assert.equal(status, 1)
      assert.equal(stderr.trim().split('\n').length, 1, stderr)
      assert.match(stderr, /^error: --audit-policy-file \S+policy\.yaml: /)
      assert.doesNotMatch(stderr, /^\s+at /m)
      // Nor the log lines of a half-built app's database connections, cut as the server stops.
      assert.equal(stdout, '')
    })
  }
})
