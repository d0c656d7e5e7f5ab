// One watch stream as the load generator reads it: a TLS socket of its own, the request written
// by hand and the answer scanned as raw bytes for each event's resourceVersion. A thousand of
// these in one process must cost less than the server that feeds them, or the figure measures
// the generator: through a full HTTP client the generator spent more CPU per byte than the
// server, and its own backlog became most of the latency it reported.
import { connect, type TLSSocket } from 'node:tls'
import { connect as connectTcp, type Socket } from 'node:net'
import type { Target } from './load.js'

const PATTERN = Buffer.from('"resourceVersion":"')
const HEADER_END = Buffer.from('\r\n\r\n')

export interface WatchStream {
  /** Resolves once the answer's headers say 200; rejects on any other answer or a failed connection. */
  opened: Promise<void>
  /** Resolves when the stream ends, rejects if it fails before close(). */
  done: Promise<void>
  close (): void
}

/**
 * Opens `path` as a watch; `onRevision(rv, now)` gets each event's resourceVersion as it
 * arrives. Event lines never span chunks of the server's chunked encoding, so the framing can
 * stay in the bytes scanned: a line is complete once its newline has arrived.
 */
export function openWatchStream (target: Target, path: string, onRevision: (rv: number, at: number) => void): WatchStream {
  const url = new URL(target.origin)
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  const socket: TLSSocket | Socket = url.protocol === 'https:'
    ? connect({ host: url.hostname, port, ca: target.ca, cert: target.cert, key: target.key })
    : connectTcp({ host: url.hostname, port })
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n\r\n`)
  let closing = false
  let headersDone = false
  let carry: Buffer | undefined
  let opened!: { resolve: () => void, reject: (err: Error) => void }
  const openedPromise = new Promise<void>((resolve, reject) => { opened = { resolve, reject } })
  const done = new Promise<void>((resolve, reject) => {
    socket.on('error', (err) => {
      opened.reject(err)
      if (closing) resolve(); else reject(err)
    })
    socket.on('close', () => {
      opened.reject(new Error(`watch ${path}: closed before its headers`))
      resolve()
    })
  })
  socket.on('data', (chunk: Buffer) => {
    const now = performance.now()
    let buf = carry === undefined ? chunk : Buffer.concat([carry, chunk])
    if (!headersDone) {
      const end = buf.indexOf(HEADER_END)
      if (end === -1) { carry = buf; return }
      const status = buf.subarray(0, buf.indexOf('\r\n')).toString('latin1')
      if (!/^HTTP\/1\.1 200 /.test(status)) {
        opened.reject(new Error(`watch ${path}: ${status} ${buf.subarray(end + 4, end + 304).toString()}`))
        socket.destroy()
        return
      }
      headersDone = true
      opened.resolve()
      buf = buf.subarray(end + HEADER_END.length)
    }
    const end = buf.lastIndexOf(10) + 1
    for (let i = buf.indexOf(PATTERN); i !== -1 && i < end; i = buf.indexOf(PATTERN, i + 1)) {
      let rv = 0
      for (let j = i + PATTERN.length; buf[j] !== 34; j++) rv = rv * 10 + buf[j]! - 48
      onRevision(rv, now)
    }
    carry = end === buf.length ? undefined : Buffer.from(buf.subarray(end))
  })
  return {
    opened: openedPromise,
    done,
    close () {
      closing = true
      socket.destroy()
    }
  }
}
