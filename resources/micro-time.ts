// metav1.MicroTime: a time with microseconds, written `2006-01-02T15:04:05.000000Z07:00`. The
// reference server decodes it with Go's time.Parse on exactly that layout (six fractional
// digits, no fewer), so a value that does not parse is a decode error (400), and a value that
// does is stored as it re-encodes it: in UTC, six digits, `Z`; the zero time as null.
import { Type } from '@sinclair/typebox'
import { timeQuote } from './go-quote.js'

export const MICRO_TIME_LAYOUT = '2006-01-02T15:04:05.000000Z07:00'

/**
 * The schema of a MicroTime field (null reads as unset). `microTime` marks it for the request
 * decoder (machinery/schema-check.ts); OpenAPI shows it as the reference does, a date-time.
 */
export const MicroTime = (opts: object = {}) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { ...opts, microTime: true })

export type MicroTimeResult = { value: string | null, error?: undefined } | { value?: undefined, error: string }

const isDigit = (s: string, i: number): boolean => i < s.length && s[i]! >= '0' && s[i]! <= '9'

/** Go's getnum: one or two digits (two when `fixed`). */
function getnum (s: string, fixed: boolean): { n: number, rest: string } | undefined {
  if (!isDigit(s, 0)) return undefined
  if (!isDigit(s, 1)) return fixed ? undefined : { n: Number(s[0]), rest: s.slice(1) }
  return { n: Number(s.slice(0, 2)), rest: s.slice(2) }
}

/** Go's atoi on a chunk: an optional sign, then digits only. */
function atoi (s: string): number | undefined {
  const m = /^([+-]?)(\d*)$/.exec(s)
  if (m === null) return undefined
  const n = m[2] === '' ? 0 : Number(m[2])
  return m[1] === '-' ? -n : n
}

const daysIn = (month: number, year: number): number => {
  if (month === 2) return (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

class ParseError extends Error {}

/**
 * The layout's chunks in order: a literal prefix (which must match byte for byte), then a
 * field, as Go's nextStdChunk splits `2006-01-02T15:04:05.000000Z07:00`.
 */
type Field = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'fraction' | 'zone'
const CHUNKS: Array<{ prefix: string, field: Field, std: string }> = [
  { prefix: '', field: 'year', std: '2006' },
  { prefix: '-', field: 'month', std: '01' },
  { prefix: '-', field: 'day', std: '02' },
  { prefix: 'T', field: 'hour', std: '15' },
  { prefix: ':', field: 'minute', std: '04' },
  { prefix: ':', field: 'second', std: '05' },
  { prefix: '', field: 'fraction', std: '.000000' },
  { prefix: '', field: 'zone', std: 'Z07:00' }
]

/** Whole seconds since the epoch and the microseconds apart: as one count of microseconds, times far from 1970 pass 2^53. */
interface Instant { seconds: number, micros: number }

function parse (input: string): Instant | null {
  const cannot = (valueElem: string, layoutElem: string): ParseError =>
    new ParseError(`parsing time ${timeQuote(input)} as ${timeQuote(MICRO_TIME_LAYOUT)}: cannot parse ${timeQuote(valueElem)} as ${timeQuote(layoutElem)}`)
  const outOfRange = (what: string): ParseError => new ParseError(`parsing time ${timeQuote(input)}: ${what} out of range`)
  const t = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, micros: 0, offset: 0 }
  let value = input
  for (const { prefix, field, std } of CHUNKS) {
    if (!value.startsWith(prefix)) {
      // skip() stops at the first byte that differs; the prefixes here are one byte long.
      throw cannot(value, prefix)
    }
    value = value.slice(prefix.length)
    const hold = value
    let range = ''
    let ok = true
    switch (field) {
      case 'year': {
        const y = value.length >= 4 && isDigit(value, 0) ? atoi(value.slice(0, 4)) : undefined
        if (y === undefined) ok = false
        else { t.year = y; value = value.slice(4) }
        break
      }
      case 'fraction': {
        if (value.length < 7 || (value[0] !== '.' && value[0] !== ',')) { ok = false; break }
        const ns = atoi(value.slice(1, 7))
        if (ns === undefined) { ok = false; break }
        if (ns < 0) range = 'fractional second'
        t.micros = ns
        value = value.slice(7)
        break
      }
      case 'zone': {
        if (value.startsWith('Z')) { value = value.slice(1); break }
        if (value.length < 6 || value[3] !== ':') { ok = false; break }
        const sign = value[0]
        const hh = getnum(value.slice(1, 3), true)
        const mm = hh === undefined ? undefined : getnum(value.slice(4, 6), true)
        value = value.slice(6)
        // As Go orders it: offsets out of range before a bad sign.
        if ((hh?.n ?? 0) > 24) range = 'time zone offset hour'
        if ((mm?.n ?? 0) > 60) range = 'time zone offset minute'
        if (hh === undefined || mm === undefined || (sign !== '+' && sign !== '-')) { ok = false; break }
        t.offset = (sign === '-' ? -1 : 1) * (hh.n * 60 + mm.n) * 60
        break
      }
      default: {
        const got = getnum(value, field !== 'hour')
        if (got === undefined) { ok = false; break }
        value = got.rest
        if (field === 'month') { t.month = got.n; if (got.n <= 0 || got.n > 12) range = 'month' }
        if (field === 'day') t.day = got.n
        if (field === 'hour') { t.hour = got.n; if (got.n >= 24) range = 'hour' }
        if (field === 'minute') { t.minute = got.n; if (got.n >= 60) range = 'minute' }
        if (field === 'second') { t.second = got.n; if (got.n >= 60) range = 'second' }
      }
    }
    if (range !== '') throw outOfRange(range)
    if (!ok) throw cannot(hold, std)
  }
  if (value !== '') throw new ParseError(`parsing time ${timeQuote(input)}: extra text: ${timeQuote(value)}`)
  if (t.day < 1 || t.day > daysIn(t.month, t.year)) throw outOfRange('day')
  const date = new Date(0)
  date.setUTCFullYear(t.year, t.month - 1, t.day)
  date.setUTCHours(t.hour, t.minute, t.second, 0)
  const seconds = Math.floor(date.getTime() / 1000) - t.offset
  // time.Time{}: 0001-01-01T00:00:00Z, which encodes as null.
  if (seconds === ZERO_TIME_SECONDS && t.micros === 0) return null
  return { seconds, micros: t.micros }
}

// Date.UTC reads years below 100 as 19xx; setUTCFullYear does not.
const ZERO_TIME_SECONDS = new Date(0).setUTCFullYear(1, 0, 1) / 1000

const pad = (n: number, width: number): string => String(n).padStart(width, '0')

/** Go's Format on the layout, in UTC: the year padded to four digits (and signed when negative). */
function format ({ seconds, micros }: Instant): string {
  const d = new Date(seconds * 1000)
  const year = d.getUTCFullYear()
  const y = year < 0 ? `-${pad(-year, 4)}` : pad(year, 4)
  return `${y}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(micros, 6)}Z`
}

/** A MicroTime string decoded and re-encoded; the error is time.Parse's, word for word. */
export function decodeMicroTime (text: string): MicroTimeResult {
  try {
    const instant = parse(text)
    return { value: instant === null ? null : format(instant) }
  } catch (err) {
    if (err instanceof ParseError) return { error: err.message }
    throw err
  }
}
