// The embedded PostgreSQL's stop on a signal while the server starts (before bin/serve.ts's
// graceful stop is in place). Small: the entry loads it before the app.
import type { EmbeddedPostgresHandle } from '../storage/embedded.js'

/**
 * Until the server is up, SIGTERM or SIGINT stops the embedded PostgreSQL and ends the process:
 * Node's default would end it at once and leave the database running, its data directory locked.
 */
export function stopOnSignal (database: Promise<EmbeddedPostgresHandle>): { release (): void } {
  const onSignal = (signal: NodeJS.Signals): void => {
    void database.then(db => db.stop(), () => {}).then(() => process.exit(signal === 'SIGINT' ? 130 : 143))
  }
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
  return { release () { process.off('SIGTERM', onSignal); process.off('SIGINT', onSignal) } }
}
