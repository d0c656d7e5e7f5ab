// Why the embedded PostgreSQL did not start, said in plain sentences: what failed, why, and
// what to do. The server prints the message alone; the log tail only at debug level.

export const USE_EXISTING = 'or start with --storage-url postgres://user@host/db to use an existing PostgreSQL'

export class EmbeddedPostgresError extends Error {
  constructor (why: string, readonly advice: string, readonly log = '') {
    super(`the embedded PostgreSQL did not start: ${why} ${advice}`)
    this.name = 'EmbeddedPostgresError'
  }
}

/** A failure's cause read off PostgreSQL's own last lines, in the order the causes are likely. */
export function explainFailure (log: string, where: { clusterDir: string, user: string }): EmbeddedPostgresError {
  const line = (re: RegExp): string | undefined => log.split('\n').find(l => re.test(l))?.replace(/^.*?(FATAL|ERROR|PANIC|initdb: error):\s*/, '').trim()
  const full = line(/No space left on device|could not extend file|disk full/i)
  if (full !== undefined) {
    return new EmbeddedPostgresError(`the disk holding ${where.clusterDir} is full (${full}).`, `Free some space, ${USE_EXISTING}.`, log)
  }
  const denied = line(/Permission denied|permission denied|Operation not permitted/)
  if (denied !== undefined) {
    return new EmbeddedPostgresError(`PostgreSQL, running as user ${where.user}, may not use ${where.clusterDir} (${denied}).`,
      `Give that user access to it or choose another --data-dir, ${USE_EXISTING}.`, log)
  }
  const ownership = line(/has wrong ownership|has invalid permissions/)
  if (ownership !== undefined) {
    return new EmbeddedPostgresError(`${ownership}.`, `Give ${where.clusterDir} to user ${where.user} with mode 0700, or choose another --data-dir.`, log)
  }
  const locked = line(/lock file .* already exists/)
  if (locked !== undefined) {
    return new EmbeddedPostgresError(`another PostgreSQL is already running on ${where.clusterDir}.`,
      'Stop the other server (is another svc-apiserver using this --data-dir?), or choose another --data-dir.', log)
  }
  const incompatible = line(/database files are incompatible with server/)
  if (incompatible !== undefined) {
    return new EmbeddedPostgresError(`${where.clusterDir} was made by another PostgreSQL version (${incompatible}).`,
      `Move it away or choose another --data-dir, ${USE_EXISTING}.`, log)
  }
  const fatal = line(/FATAL|PANIC|initdb: error/)
  return new EmbeddedPostgresError(fatal === undefined ? 'PostgreSQL exited during start-up.' : `PostgreSQL stopped: ${fatal}.`,
    `Run with --log-level=debug to see its log, ${USE_EXISTING}.`, log)
}
