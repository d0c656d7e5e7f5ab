// The audit log backend (--audit-log-path): JSON lines, written in batches after the request
// that made them has been answered, to a file rotated by size (--audit-log-maxsize megabytes)
// with old files kept by count (--audit-log-maxbackup) and age (--audit-log-maxage days), or to
// standard output for `-`.
import { createWriteStream, existsSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, type WriteStream } from 'node:fs'
import { basename, dirname, extname, join } from 'node:path'

export interface AuditLogOptions {
  path: string
  /** Days to keep rotated files; 0 keeps them whatever their age. */
  maxAgeDays?: number
  /** Rotated files to keep; 0 keeps them all. */
  maxBackups?: number
  /** Megabytes a file may reach before it is rotated; 0 never rotates. */
  maxSizeMB?: number
}

export interface AuditLogWriter {
  /** Queues one event; `serialize` runs in the next batch, not now. */
  write (serialize: () => string | undefined): void
  /** Writes what is queued and closes the file. */
  close (): Promise<void>
}

/** `audit-2026-11-25T04-42-00.123.log` beside `audit.log`, as the reference server's rotation names them. */
function backupName (path: string, at: Date): string {
  const ext = extname(path)
  const stamp = at.toISOString().replace(/:/g, '-').replace(/Z$/, '')
  return join(dirname(path), `${basename(path, ext)}-${stamp}${ext}`)
}

export function createAuditLogWriter (opts: AuditLogOptions): AuditLogWriter {
  const toStdout = opts.path === '-'
  const maxBytes = (opts.maxSizeMB ?? 0) * 1024 * 1024
  let queue: Array<() => string | undefined> = []
  let scheduled = false
  let stream: WriteStream | undefined
  let size = 0
  let closed = false

  const open = (): void => {
    mkdirSync(dirname(opts.path), { recursive: true })
    // Opened here and now, so the file exists before anything renames it.
    const fd = openSync(opts.path, 'a', 0o600)
    size = fstatSync(fd).size
    stream = createWriteStream('', { fd })
    stream.on('error', (err) => { process.stderr.write(`audit log ${opts.path}: ${err.message}\n`) })
  }

  const prune = (): void => {
    const ext = extname(opts.path)
    const prefix = `${basename(opts.path, ext)}-`
    const dir = dirname(opts.path)
    const backups = readdirSync(dir).filter(f => f.startsWith(prefix) && f.endsWith(ext)).sort().reverse()
    const cutoff = Date.now() - (opts.maxAgeDays ?? 0) * 86_400_000
    backups.forEach((f, i) => {
      const full = join(dir, f)
      const tooMany = (opts.maxBackups ?? 0) > 0 && i >= opts.maxBackups!
      const tooOld = (opts.maxAgeDays ?? 0) > 0 && statSync(full).mtimeMs < cutoff
      if (tooMany || tooOld) unlinkSync(full)
    })
  }

  // A renamed file keeps its open descriptor: writes still in the old stream land in the backup.
  const rotate = (): void => {
    try {
      let at = Date.now()
      while (existsSync(backupName(opts.path, new Date(at)))) at++
      renameSync(opts.path, backupName(opts.path, new Date(at)))
      stream!.end()
      open()
      prune()
    } catch (err) {
      // A failed rotation must not stop the server: the events keep going to the file open now.
      process.stderr.write(`audit log ${opts.path}: rotation failed: ${(err as Error).message}\n`)
      size = 0
    }
  }

  const flush = (): void => {
    scheduled = false
    const batch = queue
    queue = []
    let chunk = ''
    let chunkBytes = 0
    for (const serialize of batch) {
      const line = serialize()
      if (line === undefined) continue
      const bytes = Buffer.byteLength(line) + 1
      if (!toStdout && maxBytes > 0 && size + chunkBytes > 0 && size + chunkBytes + bytes > maxBytes) {
        if (chunk !== '') stream!.write(chunk)
        chunk = ''
        chunkBytes = 0
        rotate()
      }
      chunk += line + '\n'
      chunkBytes += bytes
    }
    if (chunk === '') return
    if (toStdout) { process.stdout.write(chunk); return }
    size += chunkBytes
    stream!.write(chunk)
  }

  if (!toStdout) open()
  return {
    write (serialize) {
      if (closed) return
      queue.push(serialize)
      if (!scheduled) { scheduled = true; setImmediate(flush) }
    },
    async close () {
      if (closed) return
      closed = true
      flush()
      if (stream !== undefined) await new Promise<void>(resolve => stream!.end(resolve))
    }
  }
}
