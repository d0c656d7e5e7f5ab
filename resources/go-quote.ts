// Go's quoting of strings inside error messages, so that messages the reference server builds
// with %q (strconv.Quote) or the time package's quote read the same here.

const NAMED: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' }

const hex2 = (n: number): string => n.toString(16).padStart(2, '0')

/** strconv.Quote: printable characters kept, the rest escaped as Go escapes them. */
export function goQuote (s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (ch === '"' || ch === '\\') out += `\\${ch}`
    else if (NAMED[ch] !== undefined) out += NAMED[ch]
    else if (c < 0x20 || c === 0x7f) out += `\\x${hex2(c)}`
    else if (c >= 0x80 && c < 0xa0) out += `\\u${c.toString(16).padStart(4, '0')}`
    else out += ch
  }
  return `${out}"`
}

/** The time package's quote: bytes outside printable ASCII as \x escapes of their UTF-8 bytes. */
export function timeQuote (s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (c >= 0x80 || c < 0x20) for (const b of Buffer.from(ch, 'utf8')) out += `\\x${hex2(b)}`
    else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch
  }
  return `${out}"`
}
