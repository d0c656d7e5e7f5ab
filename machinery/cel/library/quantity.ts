// The reference's quantity library (apiserver/pkg/cel/library/quantity.go), on the server's own
// resource.Quantity arithmetic (resources/quantity.ts).
import type { Environment } from '@marcbachmann/cel-js'
import { addQuantities, compareQuantities, isNegativeQuantity, isWholeQuantity, isZeroQuantity, milliValue, parseQuantity, subtractQuantities } from '../../../resources/quantity.js'

export class CelQuantity {
  constructor (readonly text: string) {}
}

const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)

function quantity (s: string): CelQuantity {
  if (parseQuantity(s) === undefined) throw new Error('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'')
  return new CelQuantity(s)
}

function asInteger (q: CelQuantity): bigint {
  if (!isWholeQuantity(q.text)) throw new Error('cannot convert value to integer')
  const v = milliValue(q.text) / 1000n
  if (v > INT64_MAX || v < INT64_MIN) throw new Error('cannot convert value to integer')
  return v
}

const cmp = (a: CelQuantity, b: CelQuantity): number => compareQuantities(a.text, b.text)

export function registerQuantity (env: Environment): void {
  env.registerType('kubernetes.Quantity', { ctor: CelQuantity })
  env.registerFunction('quantity(string): kubernetes.Quantity', quantity)
  env.registerFunction('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined)
  env.registerFunction('kubernetes.Quantity.sign(): int', (q: CelQuantity) => isZeroQuantity(q.text) ? 0n : isNegativeQuantity(q.text) ? -1n : 1n)
  env.registerFunction('kubernetes.Quantity.isInteger(): bool', (q: CelQuantity) => {
    if (!isWholeQuantity(q.text)) return false
    const v = milliValue(q.text) / 1000n
    return v <= INT64_MAX && v >= INT64_MIN
  })
  env.registerFunction('kubernetes.Quantity.asInteger(): int', asInteger)
  env.registerFunction('kubernetes.Quantity.asApproximateFloat(): double', (q: CelQuantity) => Number(milliValue(q.text)) / 1000)
  env.registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: CelQuantity, b: CelQuantity) => BigInt(Math.sign(cmp(a, b))))
  env.registerFunction('kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool', (a: CelQuantity, b: CelQuantity) => cmp(a, b) > 0)
  env.registerFunction('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: CelQuantity, b: CelQuantity) => cmp(a, b) < 0)
  env.registerFunction('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) => new CelQuantity(addQuantities(a.text, b.text)))
  env.registerFunction('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: CelQuantity, b: bigint) => new CelQuantity(addQuantities(a.text, String(b))))
  env.registerFunction('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) => new CelQuantity(subtractQuantities(a.text, b.text)))
  env.registerFunction('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: CelQuantity, b: bigint) => new CelQuantity(subtractQuantities(a.text, String(b))))
  env.registerOperator('kubernetes.Quantity == kubernetes.Quantity', (a: CelQuantity, b: CelQuantity) => cmp(a, b) === 0)
}
