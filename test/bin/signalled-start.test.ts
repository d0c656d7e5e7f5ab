// SIGTERM at any point of a start on the embedded PostgreSQL: the database is stopped and the
// process ends as the signal says, with nothing logged of the stop (in a file of its own: each
// start is a server's start, and the test runner's limit is per file).
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { startEmbeddedPostgres } from '../../storage/embedded.js'
import { signalledStart } from '../helpers/signalled-start.js'

describe('a start stopped by SIGTERM', () => {
  let dir: string
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'signalled-start-'))
    // A cluster from an earlier start: the entry then starts it before it loads the server.
    await (await startEmbeddedPostgres(dir)).stop()
  })
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('during a first start, once its new database runs, leaves no database running', async () => {
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

  it('at any point of its start, stops its database and ends as the signal says, with no error or warning', async () => {
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
