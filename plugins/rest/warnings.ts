// Warning headers of a response, bounded as the reference server bounds them: each message once,
// at most 4 KiB of header values in all; once that is reached, messages are cut to 256
// characters and those still past the total are dropped. A body that repeats one key ten
// thousand times gets one warning, not a header block clients refuse.

const TOTAL_LIMIT = 4096
const MESSAGE_LIMIT = 256

// Node writes header strings as Latin-1 and refuses anything wider, while a message may quote a
// client's field name in any script: the value carries the message's UTF-8 bytes, as the
// reference server sends them.
const header = (message: string): string => Buffer.from(`299 - ${JSON.stringify(message)}`, 'utf8').toString('latin1')

export function warningHeaders (messages: readonly string[]): string[] {
  const distinct = [...new Set(messages)]
  const full = distinct.map(header)
  if (full.reduce((n, h) => n + h.length, 0) <= TOTAL_LIMIT) return full
  const out: string[] = []
  let written = 0
  for (const m of distinct) {
    const h = header([...m].length > MESSAGE_LIMIT ? [...m].slice(0, MESSAGE_LIMIT).join('') : m)
    if (written + h.length > TOTAL_LIMIT) continue
    out.push(h)
    written += h.length
  }
  return [...new Set(out)]
}
