// Exact decimal numbers kept as their digits and a power of ten, for quantities: a client may
// write 100,000 digits or an exponent of a billion, and every operation here costs time in
// proportion to the digits it is given (BigInt arithmetic moving a power of ten one digit at a
// time was quadratic, and expanding an exponent into digits unbounded).

/** sign × digits × 10^exponent; digits have no leading or trailing zeros, and zero is ''. */
export interface Decimal { negative: boolean, digits: string, exponent: number }

export const ZERO: Decimal = { negative: false, digits: '', exponent: 0 }

const ZERO_CODE = 48

/** The decimal of `digits` × 10^exponent, with its zeros moved out of the digits. */
export function decimal (negative: boolean, digits: string, exponent: number): Decimal {
  let start = 0
  while (start < digits.length && digits.charCodeAt(start) === ZERO_CODE) start++
  let end = digits.length
  while (end > start && digits.charCodeAt(end - 1) === ZERO_CODE) end--
  if (start === end) return ZERO
  return { negative, digits: digits.slice(start, end), exponent: exponent + digits.length - end }
}

export const isZero = (d: Decimal): boolean => d.digits === ''

/** The number of digits before the decimal point: 10^(order-1) <= |d| < 10^order. */
const order = (d: Decimal): number => d.digits.length + d.exponent

export function compareMagnitudes (a: Decimal, b: Decimal): number {
  if (isZero(a) || isZero(b)) return Number(!isZero(a)) - Number(!isZero(b))
  if (order(a) !== order(b)) return order(a) < order(b) ? -1 : 1
  // Same order: the digits line up from the left; with no trailing zeros, the longer is larger when one is a prefix.
  const n = Math.min(a.digits.length, b.digits.length)
  const x = a.digits.slice(0, n)
  const y = b.digits.slice(0, n)
  if (x !== y) return x < y ? -1 : 1
  return a.digits.length === b.digits.length ? 0 : a.digits.length < b.digits.length ? -1 : 1
}

export function compare (a: Decimal, b: Decimal): number {
  const sa = isZero(a) ? 0 : a.negative ? -1 : 1
  const sb = isZero(b) ? 0 : b.negative ? -1 : 1
  if (sa !== sb) return sa < sb ? -1 : 1
  return sa * compareMagnitudes(a, b)
}

export const negate = (d: Decimal): Decimal => isZero(d) ? d : { ...d, negative: !d.negative }

/**
 * Digits of |a| and |b| written out to a common last place. Past `maxDigits` the smaller
 * magnitude cannot be written out (the reference server runs out of memory there), and is left
 * out: undefined.
 */
function aligned (a: Decimal, b: Decimal, maxDigits: number): [string, string, number] | undefined {
  const exponent = Math.min(a.exponent, b.exponent)
  const width = Math.max(order(a), order(b)) - exponent
  if (width > maxDigits) return undefined
  const pad = (d: Decimal): string => (d.digits + '0'.repeat(d.exponent - exponent)).padStart(width, '0')
  return [pad(a), pad(b), exponent]
}

function addDigits (x: string, y: string): string {
  const out = new Uint8Array(x.length + 1)
  let carry = 0
  for (let i = x.length - 1; i >= 0; i--) {
    const s = x.charCodeAt(i) + y.charCodeAt(i) - 2 * ZERO_CODE + carry
    carry = s >= 10 ? 1 : 0
    out[i + 1] = ZERO_CODE + s - 10 * carry
  }
  out[0] = ZERO_CODE + carry
  return Buffer.from(out).toString('latin1')
}

/** x - y for equal-length digit strings with x >= y. */
function subtractDigits (x: string, y: string): string {
  const out = new Uint8Array(x.length)
  let borrow = 0
  for (let i = x.length - 1; i >= 0; i--) {
    let s = x.charCodeAt(i) - y.charCodeAt(i) - borrow
    borrow = s < 0 ? 1 : 0
    s += 10 * borrow
    out[i] = ZERO_CODE + s
  }
  return Buffer.from(out).toString('latin1')
}

/** Beyond any literal a request body can carry (3 MiB): what an exponent alone would ask to write out. */
export const MAX_ALIGNED_DIGITS = 4 * 1024 * 1024

export function add (a: Decimal, b: Decimal): Decimal {
  if (isZero(a)) return b
  if (isZero(b)) return a
  const cmp = compareMagnitudes(a, b)
  const [big, small] = cmp >= 0 ? [a, b] : [b, a]
  const lined = aligned(big, small, MAX_ALIGNED_DIGITS)
  if (lined === undefined) return big
  const [x, y, exponent] = lined
  if (a.negative === b.negative) return decimal(a.negative, addDigits(x, y), exponent)
  if (cmp === 0) return ZERO
  return decimal(big.negative, subtractDigits(x, y), exponent)
}

export const subtract = (a: Decimal, b: Decimal): Decimal => add(a, negate(b))

/** |d| + 1 in its last place. */
function incrementDigits (digits: string): string {
  let i = digits.length - 1
  while (i >= 0 && digits[i] === '9') i--
  return i < 0 ? '1' + '0'.repeat(digits.length) : digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + '0'.repeat(digits.length - i - 1)
}

/** d rounded away from zero to a multiple of 10^exponent (inf.RoundUp). */
export function roundAway (d: Decimal, exponent: number): Decimal {
  if (isZero(d) || d.exponent >= exponent) return d
  const drop = exponent - d.exponent
  // No trailing zeros: whatever is dropped is not zero, so the kept part goes up by one.
  if (drop >= d.digits.length) return { negative: d.negative, digits: '1', exponent }
  return decimal(d.negative, incrementDigits(d.digits.slice(0, d.digits.length - drop)), exponent)
}

const LIMB = 1e7
const LIMB_DIGITS = 7

/** d × 1024^times, digit limbs times a small factor: linear in the digits. */
export function timesPowerOf1024 (d: Decimal, times: number): Decimal {
  if (isZero(d) || times === 0) return d
  const count = Math.ceil(d.digits.length / LIMB_DIGITS)
  // Each multiplication by 1024 adds at most four digits: one limb.
  const limbs = new Float64Array(count + times)
  for (let i = 0, end = d.digits.length; end > 0; i++, end -= LIMB_DIGITS) limbs[i] = Number(d.digits.slice(Math.max(0, end - LIMB_DIGITS), end))
  let used = count
  for (let t = 0; t < times; t++) {
    let carry = 0
    for (let i = 0; i < used; i++) {
      const v = limbs[i]! * 1024 + carry
      carry = Math.floor(v / LIMB)
      limbs[i] = v - carry * LIMB
    }
    if (carry > 0) limbs[used++] = carry
  }
  const parts: string[] = [String(limbs[used - 1])]
  for (let i = used - 2; i >= 0; i--) parts.push(String(limbs[i]).padStart(LIMB_DIGITS, '0'))
  return decimal(d.negative, parts.join(''), d.exponent)
}

/** The integer value of a decimal with exponent >= 0 as a BigInt (only for magnitudes known to be small). */
export const toBigInt = (d: Decimal): bigint => {
  const n = BigInt(d.digits === '' ? '0' : d.digits) * 10n ** BigInt(Math.max(0, d.exponent))
  return d.negative ? -n : n
}

/** The magnitude's order of ten: 10^(order-1) <= |d| < 10^order; 0 for zero. */
export const orderOf = (d: Decimal): number => isZero(d) ? 0 : order(d)
