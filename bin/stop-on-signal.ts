// The embedded PostgreSQL's stop on a signal while the server starts (before bin/serve.ts's
// graceful stop is in place). Small: the entry loads it before the app.
import type { EmbeddedPostgresHandle } from '../storage/embedded.js'

/** The signal a start is being stopped by. */
let received: NodeJS.Signals | undefined

const exitCodeOf = (signal: NodeJS.Signals): number => signal === 'SIGINT' ? 130 : 143

/**
 * How a start that failed ends: as the signal that stopped it would end it (130 or 143), when one
 * did (its database stopped under it), else with `code`; the failure is then no error to report.
 */
export function startFailedExit (code: number, report: () => void): never {
  if (received === undefined) report()
  process.exit(received === undefined ? code : exitCodeOf(received))
}

/** Whether a signal is stopping the start: the warnings of a start failing under it are no news. */
export const stoppingStart = (): boolean => received !== undefined

/**
 * Until the server is up, SIGTERM or SIGINT stops the embedded PostgreSQL and ends the process:
 * Node's default would end it at once and leave the database running, its data directory locked.
 * `stopStarting` is the signal the database's start was given: it ends a start still under way.
 */
export function stopOnSignal (database: Promise<EmbeddedPostgresHandle>, stopStarting?: AbortController): { release (): void } {
  const onSignal = (signal: NodeJS.Signals): void => {
    received ??= signal
    // A database still starting (initdb, recovery, its database created) is stopped where it is.
    stopStarting?.abort()
    // The database stops under a start still under way: what of the start fails for that (a
    // connection the database ends, with no one listening for it) is the stop's consequence,
    // not a failure to report, and must not end the process before the database is down.
    process.on('uncaughtException', () => {})
    void database.then(db => db.stop(), () => {}).then(() => process.exit(exitCodeOf(signal)))
  }
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
  return { release () { process.off('SIGTERM', onSignal); process.off('SIGINT', onSignal) } }
}
