// The reference's lists library (apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max,
// indexOf, lastIndexOf. Each charges one unit per element it visits.
import type { Environment } from '@marcbachmann/cel-js'
import { charge } from '../cost.js'
import { compareValues } from './values.js'

export function registerLists (env: Environment): void {
  env.registerFunction('list<A>.isSorted(): bool', (l: unknown[]) => {
    charge(l.length)
    for (let i = 1; i < l.length; i++) if (compareValues(l[i - 1], l[i]) > 0) return false
    return true
  })
  env.registerFunction('list<int>.sum(): int', (l: bigint[]) => { charge(l.length); return l.reduce((a, b) => a + b, 0n) })
  env.registerFunction('list<double>.sum(): double', (l: number[]) => { charge(l.length); return l.reduce((a, b) => a + b, 0) })
  for (const [name, sign] of [['min', -1], ['max', 1]] as const) {
    env.registerFunction(`list<A>.${name}(): A`, (l: unknown[]) => {
      charge(l.length)
      if (l.length === 0) throw new Error(`${name} called on empty list`)
      return l.reduce((a, b) => compareValues(b, a) * sign > 0 ? b : a)
    })
  }
  env.registerFunction('list<A>.indexOf(A): int', (l: unknown[], v: unknown) => {
    charge(l.length)
    return BigInt(l.findIndex((x) => compareValues(x, v) === 0))
  })
  env.registerFunction('list<A>.lastIndexOf(A): int', (l: unknown[], v: unknown) => {
    charge(l.length)
    for (let i = l.length - 1; i >= 0; i--) if (compareValues(l[i], v) === 0) return BigInt(i)
    return -1n
  })
}
