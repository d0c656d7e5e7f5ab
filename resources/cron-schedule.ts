// A CronJob's schedule read as the reference server reads it (robfig/cron v3's standard parser:
// five fields or a descriptor), so that a schedule is refused with the parser's own words. Only
// whether and why it fails matters here; no next-run time is computed. Every step is a single
// pass over the text: the schedule is client input of any length.
import { goQuote, timeQuote } from './go-quote.js'

interface Bounds { min: bigint, max: bigint, names?: Readonly<Record<string, bigint>> }

const MONTH_NAMES = { jan: 1n, feb: 2n, mar: 3n, apr: 4n, may: 5n, jun: 6n, jul: 7n, aug: 8n, sep: 9n, oct: 10n, nov: 11n, dec: 12n }
const DAY_NAMES = { sun: 0n, mon: 1n, tue: 2n, wed: 3n, thu: 4n, fri: 5n, sat: 6n }

// The six fields robfig fills, seconds first; the standard parser takes the last five.
const SECONDS: Bounds = { min: 0n, max: 59n }
const FIELD_BOUNDS: readonly Bounds[] = [
  { min: 0n, max: 59n },
  { min: 0n, max: 23n },
  { min: 1n, max: 31n },
  { min: 1n, max: 12n, names: MONTH_NAMES },
  { min: 0n, max: 6n, names: DAY_NAMES }
]

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'])
const EVERY = '@every '

const INT64_MAX = (1n << 63n) - 1n
const INT64_MIN = -(1n << 63n)
const UINT64_MAX = (1n << 64n) - 1n

class ScheduleError extends Error {}

/** Go's unicode.IsSpace, which strings.Fields splits on. */
function isGoSpace (c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0x85 || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
}

/** strings.Fields. */
function fieldsOf (s: string): string[] {
  const out: string[] = []
  let start = -1
  let i = 0
  for (const ch of s) {
    const space = isGoSpace(ch.codePointAt(0)!)
    if (space && start >= 0) { out.push(s.slice(start, i)); start = -1 }
    if (!space && start < 0) start = i
    i += ch.length
  }
  if (start >= 0) out.push(s.slice(start))
  return out
}

/** strings.TrimSpace. */
function trimGoSpace (s: string): string {
  const chars = [...s]
  let a = 0
  let b = chars.length
  while (a < b && isGoSpace(chars[a]!.codePointAt(0)!)) a++
  while (b > a && isGoSpace(chars[b - 1]!.codePointAt(0)!)) b--
  return chars.slice(a, b).join('')
}

/**
 * strconv.Atoi (base 10, an optional sign, no underscores), in the words of its errors: the
 * digits are read as an unsigned 64-bit number first, so one past that range is "out of range"
 * whatever follows, and one within it but past int64 only once the rest is known to be digits.
 */
function atoi (s: string): bigint {
  const fail = (why: string): never => { throw new ScheduleError(`strconv.Atoi: parsing ${goQuote(s)}: ${why}`) }
  let i = 0
  let negative = false
  if (s[0] === '+' || s[0] === '-') { negative = s[0] === '-'; i = 1 }
  if (i >= s.length) fail('invalid syntax')
  let n = 0n
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x30 || c > 0x39) fail('invalid syntax')
    n = n * 10n + BigInt(c - 0x30)
    if (n > UINT64_MAX) fail('value out of range')
  }
  const value = negative ? -n : n
  if (value > INT64_MAX || value < INT64_MIN) fail('value out of range')
  return value
}

/** robfig's mustParseInt: a non-negative integer. */
function parseNumber (expr: string): bigint {
  let n: bigint
  try {
    n = atoi(expr)
  } catch (err) {
    throw new ScheduleError(`failed to parse int from ${expr}: ${(err as Error).message}`)
  }
  if (n < 0n) throw new ScheduleError(`negative number (${n}) not allowed: ${expr}`)
  return n
}

/** Go's strings.ToLower, one code point at a time (a code point whose JS lower case is longer keeps its first). */
function goLower (s: string): string {
  let out = ''
  for (const ch of s) out += String.fromCodePoint([...ch.toLowerCase()][0]!.codePointAt(0)!)
  return out
}

function parseIntOrName (expr: string, b: Bounds): bigint {
  const lower = goLower(expr)
  if (b.names !== undefined && Object.hasOwn(b.names, lower)) return b.names[lower]!
  return parseNumber(expr)
}

/** One range of a field: `*`, `?`, `n`, `n-m`, each with an optional `/step`. */
function checkRange (expr: string, b: Bounds): void {
  const rangeAndStep = expr.split('/')
  const lowAndHigh = rangeAndStep[0]!.split('-')
  const single = lowAndHigh.length === 1
  let start: bigint
  let end: bigint
  // As robfig reads it: after `*` or `?` whatever follows a hyphen is never looked at.
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min
    end = b.max
  } else {
    start = parseIntOrName(lowAndHigh[0]!, b)
    if (lowAndHigh.length === 1) end = start
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, b)
    else throw new ScheduleError(`too many hyphens: ${expr}`)
  }
  let step = 1n
  if (rangeAndStep.length === 2) {
    step = parseNumber(rangeAndStep[1]!)
    if (single) end = b.max
  } else if (rangeAndStep.length > 2) {
    throw new ScheduleError(`too many slashes: ${expr}`)
  }
  if (start < b.min) throw new ScheduleError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`)
  if (end > b.max) throw new ScheduleError(`end of range (${end}) above maximum (${b.max}): ${expr}`)
  if (start > end) throw new ScheduleError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`)
  if (step === 0n) throw new ScheduleError(`step of range should be a positive number: ${expr}`)
}

/** A field is a comma-separated list of ranges; empty items are skipped (strings.FieldsFunc). */
function checkField (field: string, b: Bounds): void {
  for (const expr of field.split(',')) if (expr !== '') checkRange(expr, b)
}

/** The Go-syntax of a []string under %s: `[a b c]`. */
const listText = (items: string[]): string => `[${items.join(' ')}]`

// ---- time.ParseDuration -------------------------------------------------------------------------

const DURATION_UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n
}
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9'

/** Go's time.ParseDuration: undefined when it parses, else its error text. */
export function goDurationError (orig: string): string | undefined {
  const invalid = `time: invalid duration ${timeQuote(orig)}`
  let s = orig
  if (s[0] === '-' || s[0] === '+') s = s.slice(1)
  if (s === '0') return undefined
  if (s === '') return invalid
  let total = 0n
  let i = 0
  while (i < s.length) {
    if (!(s[i] === '.' || isDigit(s[i]))) return invalid
    // Digits before the point, with Go's overflow check on the integer part.
    let v = 0n
    const preStart = i
    while (isDigit(s[i])) {
      if (v > (1n << 63n) / 10n) return invalid
      v = v * 10n + BigInt(s.charCodeAt(i) - 0x30)
      if (v > 1n << 63n) return invalid
      i++
    }
    const pre = i > preStart
    let post = false
    let f = 0n
    let scale = 1
    if (s[i] === '.') {
      i++
      const postStart = i
      let overflowed = false
      while (isDigit(s[i])) {
        if (!overflowed) {
          if (f > ((1n << 63n) - 1n) / 10n) overflowed = true
          else { f = f * 10n + BigInt(s.charCodeAt(i) - 0x30); scale *= 10 }
        }
        i++
      }
      post = i > postStart
    }
    if (!pre && !post) return invalid
    const unitStart = i
    while (i < s.length && !(s[i] === '.' || isDigit(s[i]))) i++
    if (i === unitStart) return `time: missing unit in duration ${timeQuote(orig)}`
    const u = s.slice(unitStart, i)
    const unit = Object.hasOwn(DURATION_UNITS, u) ? DURATION_UNITS[u] : undefined
    if (unit === undefined) return `time: unknown unit ${timeQuote(u)} in duration ${timeQuote(orig)}`
    if (v > (1n << 63n) / unit) return invalid
    v *= unit
    if (f > 0n) {
      v += BigInt(Math.floor(Number(f) * (Number(unit) / scale)))
      if (v > 1n << 63n) return invalid
    }
    total += v
    if (total > 1n << 63n) return invalid
  }
  if (orig[0] !== '-' && total > (1n << 63n) - 1n) return invalid
  return undefined
}

// ---- time zones ---------------------------------------------------------------------------------

/**
 * Whether the IANA database knows `name`, as Go's time.LoadLocation finds it: through Intl, and
 * case-sensitively (Go looks names up as file names, Intl in any case). An alias Intl resolves
 * to another zone cannot be checked for case and is taken as written.
 */
export function isKnownTimeZone (name: string): boolean {
  // Every database name starts with a letter; Intl also takes UTC offsets (`+05:00`), Go does not.
  if (!/^[A-Za-z]/.test(name) || name.includes(':')) return false
  let resolved: string
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return false
  }
  return resolved === name || resolved.toLowerCase() !== name.toLowerCase()
}

/** Go's time.LoadLocation: undefined when the name loads, else its error text. */
export function loadLocationError (name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined
  if (name.includes('..') || name[0] === '/' || name[0] === '\\') return 'time: invalid location name'
  return isKnownTimeZone(name) ? undefined : `unknown time zone ${name}`
}

// ---- the parser ---------------------------------------------------------------------------------

/**
 * robfig/cron v3's ParseStandard: undefined when `spec` parses, else the parser's error text
 * (what the reference server puts after `spec.schedule: Invalid value: "...": `). Never throws.
 */
export function scheduleError (spec: string): string | undefined {
  try {
    checkSchedule(spec)
    return undefined
  } catch (err) {
    if (err instanceof ScheduleError) return err.message
    throw err
  }
}

function checkSchedule (input: string): void {
  let spec = input
  if (spec.length === 0) throw new ScheduleError('empty spec string')
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const eq = spec.indexOf('=')
    // robfig slices up to the first space; without one the Go parser panics. Here the whole rest
    // is the location and nothing is left to schedule.
    const space = spec.indexOf(' ')
    const end = space < 0 ? spec.length : space
    const name = end > eq + 1 ? spec.slice(eq + 1, end) : ''
    const problem = loadLocationError(name)
    if (problem !== undefined) throw new ScheduleError(`provided bad location ${name}: ${problem}`)
    spec = trimGoSpace(spec.slice(end))
  }
  if (spec.startsWith('@')) return checkDescriptor(spec)
  const fields = fieldsOf(spec)
  if (fields.length !== FIELD_BOUNDS.length) {
    throw new ScheduleError(`expected exactly ${FIELD_BOUNDS.length} fields, found ${fields.length}: ${listText(fields)}`)
  }
  // The seconds field the standard parser fills is always "0": it cannot fail.
  checkField('0', SECONDS)
  fields.forEach((f, i) => checkField(f, FIELD_BOUNDS[i]!))
}

function checkDescriptor (descriptor: string): void {
  if (DESCRIPTORS.has(descriptor)) return
  if (descriptor.startsWith(EVERY)) {
    const problem = goDurationError(descriptor.slice(EVERY.length))
    if (problem !== undefined) throw new ScheduleError(`failed to parse duration ${descriptor}: ${problem}`)
    return
  }
  throw new ScheduleError(`unrecognized descriptor: ${descriptor}`)
}
