// The cel-go strings extension as the reference enables it (version 2): the engine has split,
// join, trim, lowerAscii, upperAscii, indexOf, lastIndexOf and substring; charAt and replace are
// added here. Indexes count code points, as cel-go's.
import type { Environment } from '@marcbachmann/cel-js'
import { charge } from '../cost.js'
import { stringCost } from './values.js'

function replace (s: string, from: string, to: string, n: bigint): string {
  charge(stringCost(s, from, to))
  if (n === 0n) return s
  const parts = s.split(from)
  if (n < 0n || n >= BigInt(parts.length - 1)) return parts.join(to)
  const k = Number(n)
  return parts.slice(0, k + 1).join(to) + from + parts.slice(k + 1).join(from)
}

export function registerStrings (env: Environment): void {
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    charge(stringCost(s))
    const cps = [...s]
    if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`)
    return cps[Number(i)] ?? ''
  })
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b, -1n))
  env.registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => replace(s, a, b, n))
}
