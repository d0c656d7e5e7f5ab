// Ordering and equality of CEL values for the library functions.
import { deepEqual } from '../types.js'

export function compareValues (a: unknown, b: unknown): number {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0
    const x = Number(a)
    const y = Number(b)
    return x < y ? -1 : x > y ? 1 : 0
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b)
  if (deepEqual(a, b)) return 0
  throw new Error('no such overload')
}

/** Strings charge a tenth of a unit per character they scan, as the reference's traversal factor. */
export const stringCost = (...s: string[]): number => Math.ceil(s.reduce((n, x) => n + x.length, 0) * 0.1) + 1
