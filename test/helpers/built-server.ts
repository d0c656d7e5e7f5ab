// The server users run: `node dist/bundle/server.js`, as `npm start` ships it. Test processes
// share one checkout and run side by side, so the build runs under a lock; scripts/build.mjs
// itself returns at once when dist/ is up to date, so only the first launch after an edit pays.
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = new URL('../..', import.meta.url).pathname
/** The built entry point, relative to the checkout (the server resolves paths from its cwd). */
export const SERVER_ENTRY = 'dist/bundle/server.js'
/** Inside dist/ (ignored by git); a directory, which the build's clean-up of stale files passes over. */
const LOCK = join(ROOT, 'dist', '.build-lock')
/** A lock older than any build is one a killed test process left behind. */
const STALE_LOCK_MS = 120_000

let built = false

function sleep (ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

function lockAge (): number {
  try {
    return Date.now() - statSync(LOCK).mtimeMs
  } catch {
    return 0
  }
}

/**
 * Builds dist/ once per test process, synchronously so that launching stays a plain spawn.
 * mkdir is the lock: atomic, and visible to every process on the machine.
 */
export function ensureBuilt (): void {
  if (built) return
  mkdirSync(join(ROOT, 'dist'), { recursive: true })
  for (;;) {
    try {
      mkdirSync(LOCK)
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      if (lockAge() > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true })
      else sleep(100)
    }
  }
  try {
    const result = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: STALE_LOCK_MS })
    if (result.status !== 0) throw new Error(`scripts/build.mjs failed (${result.status ?? result.signal}): ${result.stderr}${result.error?.message ?? ''}`)
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
  built = true
}

/** The command line of the built server with `args`, for spawn and spawnSync. */
export function serverCommand (args: string[]): { command: string, args: string[], cwd: string } {
  ensureBuilt()
  return { command: process.execPath, args: [SERVER_ENTRY, ...args], cwd: ROOT }
}
