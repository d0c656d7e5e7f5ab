// Kubernetes version priority (the reference's version.CompareKubeAwareVersionStrings): GA
// before beta before alpha, higher numbers first within each, and names that are no Kubernetes
// version after all of them, alphabetically.

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/

/** Positive when `a` has the higher priority, negative when `b` has, 0 when they are the same. */
export function compareKubeVersions (a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a)
  const mb = KUBE_VERSION.exec(b)
  if (ma === null && mb === null) return a < b ? 1 : a > b ? -1 : 0
  if (ma === null) return -1
  if (mb === null) return 1
  const stability = (m: RegExpExecArray): number => m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0
  return stability(ma) - stability(mb) || Number(ma[1]) - Number(mb[1]) || Number(ma[3] ?? 0) - Number(mb[3] ?? 0)
}
