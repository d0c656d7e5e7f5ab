// The WebSocket framing (RFC 6455) the port-forward tunnel needs on the client's side: the
// handshake answer, and binary messages both ways (a tunnel carries a byte stream: message
// boundaries mean nothing). No extensions are agreed, so no frame is compressed.
import { createHash } from 'node:crypto'
import type { Duplex } from 'node:stream'

const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** The handshake answer to a client's Sec-WebSocket-Key, agreeing on `protocol` ('' for none). */
export function handshakeAnswer (key: string, protocol: string): string {
  const accept = createHash('sha1').update(key + ACCEPT_GUID).digest('base64')
  return 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    `Sec-WebSocket-Accept: ${accept}\r\n${protocol === '' ? '' : `Sec-WebSocket-Protocol: ${protocol}\r\n`}\r\n`
}

const OP_CONTINUATION = 0
const OP_TEXT = 1
const OP_BINARY = 2
const OP_CLOSE = 8
const OP_PING = 9

/** One unmasked frame from this server (servers never mask). */
export function frame (opcode: number, payload: Buffer): Buffer {
  const n = payload.length
  const head = n < 126 ? Buffer.from([0x80 | opcode, n]) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10)
  if (n >= 126) {
    head[0] = 0x80 | opcode
    if (n < 65536) {
      head[1] = 126
      head.writeUInt16BE(n, 2)
    } else {
      head[1] = 127
      head.writeBigUInt64BE(BigInt(n), 2)
    }
  }
  return Buffer.concat([head, payload])
}

/** A largest message this server takes from a tunnel's client: more is a broken peer. */
const MAX_FRAME = 16 * 1024 * 1024

/**
 * Reads the client's frames from `socket`: data messages' payloads go to `onData`, a ping is
 * answered, a close frame (or a broken frame) ends the tunnel through `onEnd`. Linear in the
 * bytes read: each is unmasked once, and a partial frame waits for the rest.
 */
export function readFrames (socket: Duplex, onData: (payload: Buffer) => void, onEnd: () => void): void {
  let chunks: Buffer[] = []
  let total = 0
  // The bytes the frame at the front needs: chunks are joined only once that many are here.
  let need = 2
  let ended = false
  const end = (): void => { if (!ended) { ended = true; onEnd() } }
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk)
    total += chunk.length
    if (total < need) return
    let pending = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    const keep = (): void => { chunks = pending.length === 0 ? [] : [pending]; total = pending.length }
    need = 2
    while (!ended) {
      if (pending.length < 2) { keep(); return }
      const opcode = pending[0]! & 0x0f
      const masked = (pending[1]! & 0x80) !== 0
      let length = pending[1]! & 0x7f
      let offset = 2
      if (length === 126) {
        if (pending.length < 4) { need = 4; keep(); return }
        length = pending.readUInt16BE(2)
        offset = 4
      } else if (length === 127) {
        if (pending.length < 10) { need = 10; keep(); return }
        const big = pending.readBigUInt64BE(2)
        if (big > BigInt(MAX_FRAME)) { end(); return }
        length = Number(big)
        offset = 10
      }
      if (length > MAX_FRAME) { end(); return }
      const maskAt = offset
      if (masked) offset += 4
      if (pending.length < offset + length) { need = offset + length; keep(); return }
      const payload = Buffer.from(pending.subarray(offset, offset + length))
      if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= pending[maskAt + (i & 3)]!
      pending = pending.subarray(offset + length)
      if (opcode === OP_BINARY || opcode === OP_TEXT || opcode === OP_CONTINUATION) {
        if (payload.length > 0) onData(payload)
      } else if (opcode === OP_PING) {
        socket.write(frame(0x0a, payload))
      } else if (opcode === OP_CLOSE) {
        socket.write(frame(OP_CLOSE, payload.subarray(0, 2)))
        end()
      }
    }
    keep()
  })
  socket.once('end', end)
  socket.once('close', end)
  socket.once('error', end)
}

/** A binary message. */
export const binaryFrame = (payload: Buffer): Buffer => frame(OP_BINARY, payload)
/** A normal close (1000). */
export const closeFrame = (): Buffer => frame(OP_CLOSE, Buffer.from([0x03, 0xe8]))
