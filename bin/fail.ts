// How a start that cannot go on ends: one or two sentences, the details only at debug level.
import { EmbeddedPostgresError } from '../storage/embedded-errors.js'

/**
 * Ends a start that cannot go on: one or two sentences (what failed, why, what to do), with
 * the stack and the embedded PostgreSQL's log only at debug level.
 */
export function fail (err: unknown, debug: boolean): never {
  const message = err instanceof Error ? err.message : String(err)
  process.stderr.write(`error: ${message}\n`)
  if (debug) {
    if (err instanceof EmbeddedPostgresError && err.log !== '') process.stderr.write(`PostgreSQL's log:\n${err.log}\n`)
    if (err instanceof Error && err.stack !== undefined) process.stderr.write(`${err.stack}\n`)
  }
  process.exit(1)
}
