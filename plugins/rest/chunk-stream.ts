// A long answer's chunks as a stream that takes one turn of the event loop per chunk. Node's
// own Readable.from pulls the next chunk from stream callbacks (process.nextTick), which run
// before the event loop looks at any socket: to a client whose socket takes every write at once
// (one on the same machine, or any fast one) a whole list went out in a single turn, and every
// other request waited for all of it, its database answers included. The reference server's
// goroutines are preempted; here each chunk after the first waits for setImmediate, so the
// reads and answers that arrived meanwhile are served between two chunks.
import { Readable } from 'node:stream'

export function chunkStream (chunks: Iterable<Buffer>, highWaterMark: number): Readable {
  const iterator = chunks[Symbol.iterator]()
  let pending: NodeJS.Immediate | undefined
  let started = false
  const stream = new Readable({
    highWaterMark,
    read () {
      if (pending !== undefined) return
      if (!started) {
        started = true
        pushNext()
        return
      }
      pending = setImmediate(() => {
        pending = undefined
        pushNext()
      })
    },
    destroy (err, callback) {
      if (pending !== undefined) clearImmediate(pending)
      pending = undefined
      // A generator's finally blocks run when the client goes away mid-answer.
      try { iterator.return?.() } catch {}
      callback(err)
    }
  })
  function pushNext (): void {
    let next: IteratorResult<Buffer>
    try {
      next = iterator.next()
    } catch (err) {
      stream.destroy(err as Error)
      return
    }
    stream.push(next.done === true ? null : next.value)
  }
  return stream
}
