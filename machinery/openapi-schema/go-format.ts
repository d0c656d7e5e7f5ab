// Numbers as the reference's messages print them (Go's fmt), so texts match byte for byte.

/** Go's `%v` of a float64: shortest digits, exponent form below 1e-4 and from 1e6 (`1e+06`). */
export function goFloat (v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf'
  if (v === 0) return Object.is(v, -0) ? '-0' : '0'
  const [mantissa, exp] = v.toExponential().split('e') as [string, string]
  const e = Number(exp)
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`
  return String(v)
}

/** A JSON number as the reference holds it: integers are int64 (printed whole), others float64. */
export const goNumber = (v: number): string => Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : goFloat(v)
