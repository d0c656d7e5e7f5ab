// The reference's semver library (apiserver/pkg/cel/library/semverlib.go): strict semantic
// versions (blang/semver's Parse), compared by precedence.
import type { Environment } from '@marcbachmann/cel-js'

export class Semver {
  constructor (readonly major: bigint, readonly minor: bigint, readonly patch: bigint, readonly pre: string[], readonly text: string) {}
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/

export function parseSemver (s: string): Semver | undefined {
  const m = SEMVER.exec(s)
  if (m === null) return undefined
  return new Semver(BigInt(m[1]), BigInt(m[2]), BigInt(m[3]), m[4] === undefined ? [] : m[4].split('.'), s)
}

function comparePre (a: string, b: string): number {
  const na = /^\d+$/.test(a)
  const nb = /^\d+$/.test(b)
  if (na && nb) return Math.sign(Number(BigInt(a) - BigInt(b)))
  if (na !== nb) return na ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}

export function compareSemver (a: Semver, b: Semver): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length === 0 ? 0 : a.pre.length === 0 ? 1 : -1
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = comparePre(a.pre[i], b.pre[i])
    if (c !== 0) return c
  }
  return Math.sign(a.pre.length - b.pre.length)
}

export function registerSemver (env: Environment): void {
  env.registerType('kubernetes.Semver', { ctor: Semver })
  env.registerFunction('semver(string): kubernetes.Semver', (s: string) => {
    const v = parseSemver(s)
    if (v === undefined) throw new Error(`string "${s}" is not a valid semver`)
    return v
  })
  env.registerFunction('isSemver(string): bool', (s: string) => parseSemver(s) !== undefined)
  env.registerFunction('kubernetes.Semver.major(): int', (v: Semver) => v.major)
  env.registerFunction('kubernetes.Semver.minor(): int', (v: Semver) => v.minor)
  env.registerFunction('kubernetes.Semver.patch(): int', (v: Semver) => v.patch)
  env.registerFunction('kubernetes.Semver.compareTo(kubernetes.Semver): int', (a: Semver, b: Semver) => BigInt(compareSemver(a, b)))
  env.registerFunction('kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool', (a: Semver, b: Semver) => compareSemver(a, b) > 0)
  env.registerFunction('kubernetes.Semver.isLessThan(kubernetes.Semver): bool', (a: Semver, b: Semver) => compareSemver(a, b) < 0)
  env.registerOperator('kubernetes.Semver == kubernetes.Semver', (a: Semver, b: Semver) => compareSemver(a, b) === 0)
}
