// The server side of SPDY/3.1 as far as a node agent's port-forward needs it: streams the client
// opens (SYN_STREAM, its zlib-compressed headers read with the protocol's dictionary), their
// replies, data both ways, half-closes, and pings answered. No flow control: the client
// (moby/spdystream) enforces none, and tests move little data.
import type { Duplex } from 'node:stream'
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib'

const WORDS = ['options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language', 'accept-ranges',
  'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding', 'content-language', 'content-length',
  'content-location', 'content-md5', 'content-range', 'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host', 'if-match',
  'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma',
  'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public',
  'set-cookie', 'keep-alive', 'origin']
const TAIL = '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found' +
  '500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,' +
  'publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.'

/** The SPDY/3 header compression dictionary (1423 bytes): length-prefixed words, then the tail. */
const DICTIONARY = Buffer.concat([...WORDS.map(w => {
  const b = Buffer.alloc(4 + w.length)
  b.writeUInt32BE(w.length)
  b.write(w, 4, 'latin1')
  return b
}), Buffer.from(TAIL, 'latin1')])

const SYN_STREAM = 1
const SYN_REPLY = 2
const RST_STREAM = 3
const PING = 6
const GOAWAY = 7
const FLAG_FIN = 1

/** One stream the client opened. */
export interface SpdyStream {
  id: number
  headers: Map<string, string>
  /** Data the client sends; `end` when it half-closes. */
  onData (fn: (chunk: Buffer) => void): void
  onEnd (fn: () => void): void
  write (chunk: Buffer): void
  /** Half-closes this side (a DATA frame with FIN). */
  end (): void
}

/** Runs `zlib` over one block, keeping the session's compression context. */
async function through (z: Inflate | Deflate, block: Buffer): Promise<Buffer> {
  return await new Promise((resolve) => {
    const out: Buffer[] = []
    const onData = (c: Buffer): void => { out.push(c) }
    z.on('data', onData)
    z.write(block)
    z.flush(constants.Z_SYNC_FLUSH, () => { z.off('data', onData); resolve(Buffer.concat(out)) })
  })
}

function control (type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt16BE(0x8003, 0)
  head.writeUInt16BE(type, 2)
  head.writeUInt32BE(payload.length, 4)
  head[4] = flags
  return Buffer.concat([head, payload])
}

function dataFrame (id: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(id & 0x7fffffff, 0)
  head.writeUInt32BE(payload.length, 4)
  head[4] = flags
  return Buffer.concat([head, payload])
}

function parseHeaderBlock (block: Buffer): Map<string, string> {
  const headers = new Map<string, string>()
  let at = 4
  const count = block.readUInt32BE(0)
  for (let i = 0; i < count; i++) {
    const nameLength = block.readUInt32BE(at)
    const name = block.subarray(at + 4, at + 4 + nameLength).toString('latin1')
    at += 4 + nameLength
    const valueLength = block.readUInt32BE(at)
    headers.set(name.toLowerCase(), block.subarray(at + 4, at + 4 + valueLength).toString('latin1'))
    at += 4 + valueLength
  }
  return headers
}

/** Serves SPDY on an upgraded connection; `onStream` gets each stream the client opens. */
export function serveSpdy (socket: Duplex, onStream: (stream: SpdyStream) => void): void {
  const inflate = createInflate({ dictionary: DICTIONARY })
  const deflate = createDeflate({ dictionary: DICTIONARY })
  const streams = new Map<number, { data: Array<(c: Buffer) => void>, end: Array<() => void>, ended: boolean }>()
  let queue = Promise.resolve()
  let pending = Buffer.alloc(0)
  const send = (frame: Buffer): void => { if (!socket.destroyed) socket.write(frame) }

  const handle = async (frame: Buffer): Promise<void> => {
    if ((frame[0]! & 0x80) === 0) {
      const id = frame.readUInt32BE(0) & 0x7fffffff
      const flags = frame[4]!
      const s = streams.get(id)
      if (s === undefined) return
      const payload = frame.subarray(8)
      if (payload.length > 0) for (const fn of s.data) fn(payload)
      if ((flags & FLAG_FIN) !== 0 && !s.ended) { s.ended = true; for (const fn of s.end) fn() }
      return
    }
    const type = frame.readUInt16BE(2)
    const flags = frame[4]!
    const payload = frame.subarray(8)
    if (type === SYN_STREAM) {
      const id = payload.readUInt32BE(0) & 0x7fffffff
      const headers = parseHeaderBlock(await through(inflate, payload.subarray(10)))
      const state = { data: [] as Array<(c: Buffer) => void>, end: [] as Array<() => void>, ended: false }
      streams.set(id, state)
      const idBytes = Buffer.alloc(4)
      idBytes.writeUInt32BE(id)
      send(control(SYN_REPLY, 0, Buffer.concat([idBytes, await through(deflate, Buffer.alloc(4))])))
      if ((flags & FLAG_FIN) !== 0) state.ended = true
      let closed = false
      onStream({
        id,
        headers,
        onData: (fn) => { state.data.push(fn) },
        onEnd: (fn) => { if (state.ended) fn(); else state.end.push(fn) },
        write: (chunk) => { if (!closed) send(dataFrame(id, 0, chunk)) },
        end: () => { if (!closed) { closed = true; send(dataFrame(id, FLAG_FIN, Buffer.alloc(0))) } }
      })
    } else if (type === PING) {
      send(control(PING, 0, payload.subarray(0, 4)))
    } else if (type === RST_STREAM) {
      const s = streams.get(payload.readUInt32BE(0) & 0x7fffffff)
      if (s !== undefined && !s.ended) { s.ended = true; for (const fn of s.end) fn() }
    } else if (type === GOAWAY) {
      socket.end()
    }
  }

  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk])
    while (pending.length >= 8) {
      const length = pending.readUInt32BE(4) & 0xffffff
      if (pending.length < 8 + length) break
      const frame = Buffer.from(pending.subarray(0, 8 + length))
      pending = pending.subarray(8 + length)
      queue = queue.then(async () => { await handle(frame) }).catch(() => { socket.destroy() })
    }
  })
  socket.once('close', () => {
    inflate.close()
    deflate.close()
    for (const s of streams.values()) if (!s.ended) { s.ended = true; for (const fn of s.end) fn() }
  })
}
