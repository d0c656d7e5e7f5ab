// Pod security levels, policy versions and the policy a namespace's labels ask for, as the
// pod-security-admission library parses them: a label that does not parse still yields a policy
// (enforce falls back to restricted, audit and warn fail open to privileged) beside its error.
import { fieldError, type FieldError } from '../../resources/status.js'
import { POD_SECURITY } from '../../resources/naming.js'

export type Level = 'privileged' | 'baseline' | 'restricted'
export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted']

/** `latest`, or a minor of version 1 (`v1.25` is minor 25). */
export type Version = number | 'latest'
export const LATEST: Version = 'latest'

export interface LevelVersion { level: Level, version: Version }
export interface Policy { enforce: LevelVersion, audit: LevelVersion, warn: LevelVersion }
export type Mode = keyof Policy
export const MODES: readonly Mode[] = ['enforce', 'audit', 'warn']

export const LABELS = {
  enforce: `${POD_SECURITY.labelPrefix}enforce`,
  enforceVersion: `${POD_SECURITY.labelPrefix}enforce-version`,
  audit: `${POD_SECURITY.labelPrefix}audit`,
  auditVersion: `${POD_SECURITY.labelPrefix}audit-version`,
  warn: `${POD_SECURITY.labelPrefix}warn`,
  warnVersion: `${POD_SECURITY.labelPrefix}warn-version`
} as const

export const LEVEL_PROBLEM = `must be one of ${LEVELS.join(', ')}`
export const VERSION_PROBLEM = 'must be "latest" or "v1.x"'

const VERSION_PATTERN = /^v1\.([0-9]|[1-9][0-9]*)$/

export const parseLevel = (value: string): Level | undefined => (LEVELS as readonly string[]).includes(value) ? value as Level : undefined

export function parseVersion (value: string): Version | undefined {
  if (value === 'latest') return LATEST
  const match = VERSION_PATTERN.exec(value)
  if (match === null) return undefined
  const minor = Number(match[1])
  return Number.isSafeInteger(minor) ? minor : undefined
}

export const versionText = (v: Version): string => v === LATEST ? 'latest' : `v1.${v}`
export const levelVersionText = (lv: LevelVersion): string => `${lv.level}:${versionText(lv.version)}`

/** Whether version a is at least b (`latest` is newer than every numbered version). */
export function atLeast (a: Version, b: Version): boolean {
  if (a === LATEST) return true
  if (b === LATEST) return false
  return a >= b
}

/** -1, 0 or 1 as a is less strict than, as strict as, or stricter than b. */
export const compareLevels = (a: Level, b: Level): number => Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b))

export const sameLevelVersion = (a: LevelVersion, b: LevelVersion): boolean => a.level === b.level && a.version === b.version

/** Equivalent: both privileged (whatever the version), or the same level and version. */
export const equivalent = (a: LevelVersion, b: LevelVersion): boolean =>
  (a.level === 'privileged' && b.level === 'privileged') || sameLevelVersion(a, b)

export const fullyPrivileged = (p: Policy): boolean => MODES.every(m => p[m].level === 'privileged')

/** The policy a namespace's labels ask for, over the configured defaults, with an error per unparsable label. */
export function policyFromLabels (labels: Readonly<Record<string, string>> | undefined, defaults: Policy): { policy: Policy, errors: FieldError[] } {
  const policy: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } }
  const errors: FieldError[] = []
  if (labels === undefined || Object.keys(labels).length === 0) return { policy, errors }
  const has = (key: string): boolean => Object.hasOwn(labels, key)
  const bad = (key: string, problem: string): void => { errors.push(fieldError('Invalid', `metadata.labels[${key}]`, labels[key], problem)) }
  const level = (mode: Mode, key: string, fallback: Level): boolean => {
    if (!has(key)) return false
    const parsed = parseLevel(labels[key]!)
    if (parsed === undefined) bad(key, LEVEL_PROBLEM)
    policy[mode].level = parsed ?? fallback
    return parsed !== undefined
  }
  const version = (mode: Mode, key: string): boolean => {
    if (!has(key)) return false
    const parsed = parseVersion(labels[key]!)
    if (parsed === undefined) bad(key, VERSION_PROBLEM)
    policy[mode].version = parsed ?? LATEST
    return true
  }
  const enforceLevelSet = level('enforce', LABELS.enforce, 'restricted')
  version('enforce', LABELS.enforceVersion)
  level('audit', LABELS.audit, 'privileged')
  version('audit', LABELS.auditVersion)
  const warnLevelSet = has(LABELS.warn)
  level('warn', LABELS.warn, 'privileged')
  const warnVersionSet = version('warn', LABELS.warnVersion)
  // An explicit enforce level stricter than warn's default warns at that level too.
  if (!warnLevelSet && enforceLevelSet && compareLevels(policy.enforce.level, policy.warn.level) > 0) {
    policy.warn.level = policy.enforce.level
    if (!warnVersionSet) policy.warn.version = policy.enforce.version
  }
  return { policy, errors }
}
