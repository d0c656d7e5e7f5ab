// Resource quantities ("1Gi", "500m", "1.5e3") parsed and written as the reference server's
// resource.Quantity parses and prints them: values are exact (finer than 10^-9 rounds up),
// keep the family of their suffix (binary, decimal, exponent), and binary ones are capped at
// 2^63-1. Time is linear in the text: no digit count is refused, as the reference refuses none.
import { add, compare, compareMagnitudes, decimal, isZero, negate, orderOf, roundAway, subtract, timesPowerOf1024, toBigInt, ZERO, type Decimal } from './decimal.js'

export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
export const QUANTITY_MESSAGE = `quantities must match the regular expression '${QUANTITY_PATTERN}'`

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent'

export interface Quantity {
  /** The value, rounded away from zero to a multiple of 10^-9. */
  value: Decimal
  format: Format
  /** The client's own text, which the reference keeps when its fast path finds it canonical. */
  text?: string
}

const NANO = -9
const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 }
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 }
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIX).map(([s, e]) => [e, s]))
const BINARY_BY_POWER = new Map(Object.entries(BINARY_SUFFIX).map(([s, p]) => [p, s]))
const SUFFIX_LETTERS = 'eEinumkKMGTP'
const MAX_INT64 = decimal(false, '9223372036854775807', 0)
const ONE = decimal(false, '1', 0)
const INT64_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const

// Go's int32 arithmetic, which the reference's scales use (and wrap in).
const int32 = (n: number): number => Number(BigInt.asIntN(32, BigInt(n)))
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9'

interface Scanned { positive: boolean, value: string, num: string, denom: string, suffix: string }

/** parseQuantityString: sign, digits, fraction and suffix, in one pass. */
function scan (str: string): Scanned | undefined {
  const end = str.length
  let positive = true
  let pos = 0
  if (str[0] === '-') { positive = false; pos++ } else if (str[0] === '+') pos++
  while (pos < end && str[pos] === '0') pos++
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' }
  let i = pos
  while (i < end && isDigit(str[i])) i++
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' }
  const num = str.slice(pos, i) === '' ? '0' : str.slice(pos, i)
  pos = i
  let denom = ''
  if (str[pos] === '.') {
    pos++
    i = pos
    while (i < end && isDigit(str[i])) i++
    if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: '' }
    denom = str.slice(pos, i)
    pos = i
  }
  const value = str.slice(0, pos)
  const suffixStart = pos
  while (pos < end && SUFFIX_LETTERS.includes(str[pos]!)) pos++
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++
  while (pos < end && isDigit(str[pos])) pos++
  if (pos < end) return undefined
  return { positive, value, num, denom, suffix: str.slice(suffixStart) }
}

/** The suffixer's interpret: base, exponent and format; undefined when it is not a suffix. */
function interpret (suffix: string): { base: 2 | 10, exponent: number, format: Format } | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIX, suffix)) return { base: 10, exponent: DECIMAL_SUFFIX[suffix]!, format: 'DecimalSI' }
  if (Object.hasOwn(BINARY_SUFFIX, suffix)) return { base: 2, exponent: 10 * BINARY_SUFFIX[suffix]!, format: 'BinarySI' }
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    // strconv.ParseInt(s, 10, 64), then a cast to int32 that wraps.
    const text = suffix.slice(1)
    if (!/^[+-]?[0-9]+$/.test(text)) return undefined
    // Past 19 significant digits it is out of int64's range, and BigInt would read it all.
    if (text.replace(/^[+-]?0*/, '').length > 19) return undefined
    const n = BigInt(text)
    if (n < INT64_RANGE[0] || n > INT64_RANGE[1]) return undefined
    return { base: 10, exponent: Number(BigInt.asIntN(32, n)), format: 'DecimalExponent' }
  }
  return undefined
}

/** ParseQuantity: the value, its format, and the text kept when it is already canonical; undefined when it is not a quantity. */
export function parseQuantity (str: string): Quantity | undefined {
  if (str === '') return undefined
  if (str === '0') return { value: ZERO, format: 'DecimalSI', text: str }
  const scanned = scan(str)
  if (scanned === undefined) return undefined
  const { positive, value, num, denom } = scanned
  const suffix = interpret(scanned.suffix)
  if (suffix === undefined) return undefined
  const { base, exponent } = suffix
  let format = suffix.format

  // The reference's int64 fast path: its value is the same as the exact one below, but it
  // keeps the client's text when that looks canonical.
  let precision: number
  let scale = 0
  if (format === 'BinarySI') precision = exponent >= 0 && denom.length === 0 ? 15 - num.length - Math.trunc(exponent * 3 / 10) - 1 : -1
  else {
    scale = exponent
    precision = 18 - num.length - denom.length
  }
  if (precision >= 0) {
    scale = int32(scale - denom.length)
    if (scale >= NANO) {
      const shifted = num + denom
      const digits = BigInt(shifted)
      const magnitude = base === 2 ? digits << BigInt(exponent) : digits
      if (magnitude <= INT64_RANGE[1]) {
        const q: Quantity = { value: decimal(!positive, shifted, base === 2 ? 0 : scale), format }
        if (base === 2) {
          q.value = timesPowerOf1024(q.value, exponent / 10)
          if ((digits & 7n) !== 0n) q.text = str
        } else if (scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0') q.text = str
        return q
      }
    }
  }

  // inf.Dec's SetString needs a digit.
  if (!/[0-9]/.test(value)) return undefined
  let amount: Decimal
  if (base === 10) amount = decimal(false, num + denom, -int32(denom.length + int32(-exponent)))
  else {
    amount = decimal(false, num + denom, -denom.length)
    // At 10^19 or more the cap is reached whatever the suffix multiplies.
    amount = orderOf(amount) > 19 ? MAX_INT64 : timesPowerOf1024(amount, exponent / 10)
  }
  amount = roundAway(amount, NANO)
  if (format === 'BinarySI' && compareMagnitudes(amount, MAX_INT64) > 0) amount = MAX_INT64
  if (format === 'BinarySI' && !isZero(amount) && compareMagnitudes(amount, ONE) < 0) format = 'DecimalSI'
  return { value: positive ? amount : negate(amount), format }
}

const BINARY_THRESHOLD = decimal(false, '1024', 0)

/** The canonical text of a quantity (Quantity.String): the kept text, else CanonicalizeBytes. */
export function formatQuantity (q: Quantity): string {
  if (q.text !== undefined) return q.text
  const v = q.value
  if (isZero(v)) return '0'
  const sign = v.negative ? '-' : ''
  let format = q.format
  if (format === 'BinarySI' && (compareMagnitudes(v, BINARY_THRESHOLD) < 0 || v.exponent < 0)) format = 'DecimalSI'
  if (format === 'BinarySI') {
    // Only sums grow past the parse cap; there BigInt's conversion is the cost, as big.Int's is the reference's.
    let n = toBigInt({ ...v, negative: false })
    let power = 0
    const zeros = (n & -n).toString(2).length - 1
    power = Math.floor(zeros / 10)
    n >>= BigInt(10 * power)
    // Past Ei the reference finds no suffix and prints the mantissa alone.
    return `${sign}${n}${BINARY_BY_POWER.get(power) ?? ''}`
  }
  // The exponent is an int32 in the reference, lowered to a multiple of three.
  let digits = v.digits
  let exponent = int32(v.exponent)
  while (exponent % 3 !== 0) { digits += '0'; exponent = int32(exponent - 1) }
  if (format === 'DecimalSI') return `${sign}${digits}${DECIMAL_BY_EXPONENT.get(exponent) ?? ''}`
  return `${sign}${digits}${exponent === 0 ? '' : `e${exponent}`}`
}

/** The canonical form of a quantity string, or undefined when it is not one. */
export function canonicalQuantity (text: string): string | undefined {
  const q = parseQuantity(text)
  return q === undefined ? undefined : formatQuantity(q)
}

/**
 * A quantity field's JSON value as Quantity.UnmarshalJSON reads it: a string or a number, with
 * surrounding space trimmed; its canonical text, or undefined when it is not a quantity.
 * A number arrives here already decoded, so it is read as JavaScript writes it (1e3 as "1000").
 */
export function decodeQuantity (value: string | number): string | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : trimJsonSpace(value)
  return canonicalQuantity(text)
}

// Go's unicode.IsSpace, less the control characters a valid JSON string cannot hold unescaped
// (the reference trims the raw JSON text, where an escaped "\n" is two characters, not space).
function trimJsonSpace (s: string): string {
  let start = 0
  let end = s.length
  while (start < end && isJsonSpace(s.charCodeAt(start))) start++
  while (end > start && isJsonSpace(s.charCodeAt(end - 1))) end--
  return s.slice(start, end)
}

const isJsonSpace = (c: number): boolean => c === 0x20 || c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000

const valueOf = (text: string | undefined): Decimal => parseQuantity(text ?? '0')?.value ?? ZERO

/** -1, 0 or 1; unparsable quantities count as zero. */
export const compareQuantities = (a: string | undefined, b: string | undefined): number => compare(valueOf(a), valueOf(b))

export const isNegativeQuantity = (text: string): boolean => valueOf(text).negative
export const isZeroQuantity = (text: string): boolean => isZero(valueOf(text))

const ZERO_QUANTITY: Quantity = { value: ZERO, format: 'DecimalSI' }

/** a + b; the sum keeps a's format, or b's when a is zero (as the reference Quantity.Add). */
export function addQuantities (a: string, b: string): string {
  const x = parseQuantity(a) ?? ZERO_QUANTITY
  const y = parseQuantity(b) ?? ZERO_QUANTITY
  return formatQuantity({ value: add(x.value, y.value), format: isZero(x.value) ? y.format : x.format })
}

/** a - b, in a's format (b's when a is zero). */
export function subtractQuantities (a: string, b: string): string {
  const x = parseQuantity(a) ?? ZERO_QUANTITY
  const y = parseQuantity(b) ?? ZERO_QUANTITY
  return formatQuantity({ value: subtract(x.value, y.value), format: isZero(x.value) ? y.format : x.format })
}

/** Whether a quantity is a whole number (no fraction below 1). */
export const isWholeQuantity = (text: string): boolean => valueOf(text).exponent >= 0

/** A quantity rounded up, away from zero, to a whole number in its own format (Quantity.RoundUp(0)). */
export function roundUpQuantity (text: string): string {
  const q = parseQuantity(text)
  if (q === undefined || q.value.exponent >= 0) return text
  return formatQuantity({ value: roundAway(q.value, 0), format: q.format })
}

/**
 * The value in thousandths, rounded away from zero (the reference MilliValue). Past int64 the
 * reference's answer is undefined; here it saturates.
 */
export function milliValue (text: string): bigint {
  const v = roundAway(valueOf(text), -3)
  if (orderOf(v) > 20) return v.negative ? INT64_RANGE[0] : INT64_RANGE[1]
  const n = toBigInt({ ...v, exponent: v.exponent + 3 })
  return n < INT64_RANGE[0] ? INT64_RANGE[0] : n > INT64_RANGE[1] ? INT64_RANGE[1] : n
}

// Resource lists (name → quantity) as quota and limit ranges do arithmetic on them.
export type ResourceList = Record<string, string>

/** The sum of two lists, names of either. */
export function addLists (a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a }
  for (const [k, v] of Object.entries(b)) out[k] = Object.hasOwn(out, k) ? addQuantities(out[k]!, v) : canonicalQuantity(v) ?? v
  return out
}

/** a - b for the names of a; a difference below zero counts as zero. */
export function subtractNonNegative (a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {}
  for (const [k, v] of Object.entries(a)) {
    const d = Object.hasOwn(b, k) ? subtractQuantities(v, b[k]!) : v
    out[k] = isNegativeQuantity(d) ? '0' : d
  }
  return out
}

/** Only the entries named. */
export function maskList (list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {}
  for (const n of names) if (Object.hasOwn(list, n)) out[n] = list[n]!
  return out
}

export const withoutZeros = (list: ResourceList): ResourceList =>
  Object.fromEntries(Object.entries(list).filter(([, v]) => !isZeroQuantity(v)))

/** Same names and equal values. */
export function listsEqual (a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const x = a ?? {}
  const y = b ?? {}
  const keys = Object.keys(x)
  if (keys.length !== Object.keys(y).length) return false
  return keys.every(k => Object.hasOwn(y, k) && compareQuantities(x[k], y[k]) === 0)
}

/** Each name of `a` in `limits` whose value is over its limit. */
export const exceeding = (a: ResourceList, limits: ResourceList): string[] =>
  Object.keys(a).filter(k => Object.hasOwn(limits, k) && compareQuantities(a[k], limits[k]) > 0)

/** `k=v` pairs sorted by name, joined by commas (the reference quota messages). */
export const printList = (list: ResourceList): string =>
  Object.keys(list).sort().map(k => `${k}=${canonicalQuantity(list[k]!) ?? list[k]!}`).join(',')
