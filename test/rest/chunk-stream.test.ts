// A streamed answer takes one turn of the event loop per chunk, so what arrives meanwhile (other
// requests, the database's answers) is served between two chunks rather than after the whole list.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { chunkStream } from '../../plugins/rest/chunk-stream.js'

const chunk = (i: number): Buffer => Buffer.alloc(64 * 1024, 97 + (i % 26))

/** A sink that takes every write at once, as a fast socket does; records when each chunk came. */
function fastSink (log: string[]): Writable {
  let n = 0
  return new Writable({ highWaterMark: 16 * 1024, write (data: Buffer, _enc, done) { log.push(`chunk ${n++}`); done() } })
}

/** Whether a callback scheduled on the event loop when the stream starts ran before its last chunk. */
async function interleaving (stream: Readable, chunks: number): Promise<string[]> {
  const log: string[] = []
  setImmediate(() => { log.push('other work') })
  await pipeline(stream, fastSink(log))
  assert.equal(log.filter(l => l.startsWith('chunk')).length, chunks)
  return log
}

test('other work scheduled on the event loop runs between two chunks, not after the last', async () => {
  const chunks = Array.from({ length: 20 }, (_, i) => chunk(i))
  const log = await interleaving(chunkStream(chunks, 64 * 1024), 20)
  const other = log.indexOf('other work')
  assert.ok(other > 0 && other < 3, log.join(', '))
  // Readable.from, which this replaced, writes all twenty in one turn: the check's own control.
  const before = await interleaving(Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 }), 20)
  assert.ok(!before.includes('other work'), before.join(', '))
})

test('the bytes come out whole and in order; the first chunk without waiting', async () => {
  const chunks = Array.from({ length: 7 }, (_, i) => chunk(i))
  const received: Buffer[] = []
  const stream = chunkStream(chunks, 64 * 1024)
  let firstBeforeTurn = false
  stream.once('data', () => { firstBeforeTurn = !turned })
  let turned = false
  setImmediate(() => { turned = true })
  for await (const c of stream) received.push(c as Buffer)
  assert.ok(firstBeforeTurn, 'the first chunk is read in the turn the stream was read in')
  assert.deepEqual(Buffer.concat(received), Buffer.concat(chunks))
  assert.deepEqual(await chunkStream([], 1024).toArray(), [])
})

test('a client that goes away ends the generator (its finally runs); a throwing one errors the stream', async () => {
  let finished = false
  function * endless (): Generator<Buffer> {
    try {
      for (let i = 0; ; i++) yield chunk(i)
    } finally {
      finished = true
    }
  }
  const stream = chunkStream(endless(), 64 * 1024)
  let seen = 0
  await new Promise<void>((resolve) => {
    stream.on('data', () => { if (++seen === 3) stream.destroy() })
    stream.on('close', resolve)
  })
  assert.equal(finished, true)

  function * failing (): Generator<Buffer> {
    yield chunk(0)
    throw new Error('encoding failed')
  }
  await assert.rejects(chunkStream(failing(), 64 * 1024).toArray(), /encoding failed/)
})
