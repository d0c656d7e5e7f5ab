// Evaluating a pod against a level at a version: each check as of that version (its newest
// variant no newer than it), restricted checks replacing the baseline ones they override,
// baseline checks first and each level's in the order of their ids, as the reference registry.
import { atLeast, versionText, type LevelVersion, type Version } from './policy.js'
import type { Check, CheckPod, PodView, Violation } from './check.js'
import { BASELINE_CHECKS } from './checks-baseline.js'
import { RESTRICTED_CHECKS } from './checks-restricted.js'

const byId = (a: Check, b: Check): number => a.id < b.id ? -1 : a.id > b.id ? 1 : 0
const ORDERED_BASELINE = [...BASELINE_CHECKS].sort(byId)
const ORDERED_RESTRICTED = [...RESTRICTED_CHECKS].sort(byId)

/** A check's variant in force at a version, if the check exists by then. */
function asOf (check: Check, version: Version): { checkPod: CheckPod, overrides?: readonly string[] } | undefined {
  let found
  for (const v of check.versions) if (atLeast(version, v.minimumVersion)) found = v
  return found
}

function checksFor (lv: LevelVersion): CheckPod[] {
  const baseline = ORDERED_BASELINE.map(c => ({ id: c.id, variant: asOf(c, lv.version) }))
  if (lv.level === 'baseline') return baseline.flatMap(c => c.variant === undefined ? [] : [c.variant.checkPod])
  const restricted = ORDERED_RESTRICTED.map(c => asOf(c, lv.version)).filter(v => v !== undefined)
  const overridden = new Set(restricted.flatMap(v => v.overrides ?? []))
  return [
    ...baseline.flatMap(c => c.variant === undefined || overridden.has(c.id) ? [] : [c.variant.checkPod]),
    ...restricted.map(v => v.checkPod)
  ]
}

/** The newest version any check changes at: later versions evaluate as it does. */
const NEWEST_CHANGE = Math.max(...[...BASELINE_CHECKS, ...RESTRICTED_CHECKS].flatMap(c => c.versions.map(v => v.minimumVersion as number)))

const registry = new Map<string, CheckPod[]>()

/** The pod's violations of a level at a version (none for privileged). */
export function evaluatePod (lv: LevelVersion, pod: PodView): Violation[] {
  if (lv.level === 'privileged') return []
  const version: Version = atLeast(lv.version, NEWEST_CHANGE) ? NEWEST_CHANGE : lv.version
  const key = `${lv.level}:${versionText(version)}`
  let checks = registry.get(key)
  if (checks === undefined) {
    checks = checksFor({ level: lv.level, version })
    registry.set(key, checks)
  }
  const out: Violation[] = []
  for (const check of checks) {
    const v = check(pod)
    if (v !== undefined) out.push(v)
  }
  return out
}

/** `reason (detail), reason (detail)`: what a refusal, a warning and the audit annotation say. */
export const violationDetails = (violations: readonly Violation[]): string =>
  violations.map(v => v.detail === '' ? v.reason : `${v.reason} (${v.detail})`).join(', ')

/** `reason, reason`: what the warnings about existing pods say. */
export const violationReasons = (violations: readonly Violation[]): string => violations.map(v => v.reason).join(', ')
