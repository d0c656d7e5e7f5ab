// Resource quantities ("1Gi", "500m", "1.5e3") parsed and written in the reference server's
// canonical form: values are exact (BigInt nano-units, finer precision rounds up) and keep the
// family of their suffix (binary, decimal, exponent).

export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
export const QUANTITY_MESSAGE = `quantities must match the regular expression '${QUANTITY_PATTERN}'`

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent'

export interface Quantity {
  /** The value in units of 10^-9, rounded up. */
  nanos: bigint
  format: Format
}

const NANO = 9
const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 }
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 }
const DECIMAL_SUFFIX = new Map(Object.entries(DECIMAL).map(([s, e]) => [e, s]))
const BINARY_SUFFIX = new Map(Object.entries(BINARY).map(([s, e]) => [e, s]))

const pow10 = (n: number): bigint => 10n ** BigInt(n)
const ceilDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b
  return a % b !== 0n && (a > 0n) === (b > 0n) ? q + 1n : q
}

/** Parses a quantity string; undefined when it is not one. */
export function parseQuantity (text: string): Quantity | undefined {
  const m = /^([+-]?)([0-9]*\.?[0-9]*)(.*)$/.exec(text)
  if (m === null) return undefined
  const [, sign, number, suffix] = m as unknown as [string, string, string, string]
  if (number === '' || number === '.') return undefined
  const [whole, frac = ''] = number.split('.')
  const digits = BigInt(`${whole}${frac}` === '' ? '0' : `${whole}${frac}`)
  // value = digits * 10^-frac.length * multiplier
  let scale10 = -frac.length
  let binaryPower = 0
  let format: Format
  if (suffix in BINARY) {
    format = 'BinarySI'
    binaryPower = BINARY[suffix]!
  } else if (suffix in DECIMAL) {
    format = 'DecimalSI'
    scale10 += DECIMAL[suffix]!
  } else {
    const e = /^[eE]([-+]?[0-9]+)$/.exec(suffix)
    if (e === null) return undefined
    format = 'DecimalExponent'
    const exp = Number(e[1])
    if (!Number.isSafeInteger(exp) || Math.abs(exp) > 1000) return undefined
    scale10 += exp
  }
  let numerator = digits * (1024n ** BigInt(binaryPower))
  let nanos: bigint
  const shift = scale10 + NANO
  if (shift >= 0) nanos = numerator * pow10(shift)
  else nanos = ceilDiv(numerator, pow10(-shift))
  if (sign === '-') { numerator = -numerator; nanos = -nanos }
  return { nanos, format }
}

/** The canonical text of a quantity, as the reference server serialises it. */
export function formatQuantity (q: Quantity): string {
  const negative = q.nanos < 0n
  const abs = negative ? -q.nanos : q.nanos
  const sign = negative ? '-' : ''
  if (abs === 0n) return '0'
  let format = q.format
  if (format === 'BinarySI') {
    const isWhole = abs % pow10(NANO) === 0n
    if (!isWhole || abs < 1024n * pow10(NANO)) format = 'DecimalSI'
    else {
      let value = abs / pow10(NANO)
      let power = 0
      while (power < 6 && value % 1024n === 0n) { value /= 1024n; power++ }
      return `${sign}${value}${BINARY_SUFFIX.get(power) ?? ''}`
    }
  }
  // mantissa * 10^exponent with the exponent a multiple of 3, trailing zeros moved into it.
  let mantissa = abs
  let exponent = -NANO
  while (mantissa % 10n === 0n) { mantissa /= 10n; exponent++ }
  const extra = ((exponent % 3) + 3) % 3
  if (extra > 0) { mantissa *= pow10(extra); exponent -= extra }
  if (format === 'DecimalSI') {
    while (exponent > 18) { mantissa *= 1000n; exponent -= 3 }
    return `${sign}${mantissa}${DECIMAL_SUFFIX.get(exponent)!}`
  }
  return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`
}

/** The canonical form of a quantity string, or undefined when it is not one. */
export function canonicalQuantity (text: string): string | undefined {
  const q = parseQuantity(text)
  return q === undefined ? undefined : formatQuantity(q)
}

/** -1, 0 or 1; unparsable quantities count as zero. */
export function compareQuantities (a: string | undefined, b: string | undefined): number {
  const x = parseQuantity(a ?? '0')?.nanos ?? 0n
  const y = parseQuantity(b ?? '0')?.nanos ?? 0n
  return x < y ? -1 : x > y ? 1 : 0
}

export const isNegativeQuantity = (text: string): boolean => (parseQuantity(text)?.nanos ?? 0n) < 0n
export const isZeroQuantity = (text: string): boolean => (parseQuantity(text)?.nanos ?? 0n) === 0n

/** a + b; the sum keeps a's format, or b's when a is zero (as the reference Quantity.Add). */
export function addQuantities (a: string, b: string): string {
  const x = parseQuantity(a) ?? { nanos: 0n, format: 'DecimalSI' as const }
  const y = parseQuantity(b) ?? { nanos: 0n, format: 'DecimalSI' as const }
  return formatQuantity({ nanos: x.nanos + y.nanos, format: x.nanos === 0n ? y.format : x.format })
}

/** a - b, in a's format. */
export function subtractQuantities (a: string, b: string): string {
  const x = parseQuantity(a) ?? { nanos: 0n, format: 'DecimalSI' as const }
  const y = parseQuantity(b) ?? { nanos: 0n, format: 'DecimalSI' as const }
  return formatQuantity({ nanos: x.nanos - y.nanos, format: x.nanos === 0n ? y.format : x.format })
}

/** Whether a quantity is a whole number (no fraction below 1). */
export const isWholeQuantity = (text: string): boolean => (parseQuantity(text)?.nanos ?? 0n) % (10n ** 9n) === 0n

/** A quantity rounded up to a whole number, in its own format. */
export function roundUpQuantity (text: string): string {
  const q = parseQuantity(text)
  if (q === undefined) return text
  const unit = 10n ** 9n
  const rest = q.nanos % unit
  return rest === 0n ? text : formatQuantity({ nanos: q.nanos - rest + (q.nanos > 0n ? unit : 0n), format: q.format })
}

/** The value in thousandths, rounded up (the reference MilliValue). */
export const milliValue = (text: string): bigint => ceilDiv(parseQuantity(text)?.nanos ?? 0n, 10n ** 6n)

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
