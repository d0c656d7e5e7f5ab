// What a pod security check is: an id, a level, and the pod test each policy version from its
// minimum on applies. Results read as the reference library words them: a short reason, and a
// detail naming the containers, volumes or values at fault.
import type { Level, Version } from './policy.js'

export type AnyObject = Record<string, any>

/** What a check reads: the pod's (or template's) metadata and spec. */
export interface PodView { metadata: AnyObject, spec: AnyObject }

export interface Violation { reason: string, detail: string }

/** A check's pod test: a violation, or undefined when the pod passes. */
export type CheckPod = (pod: PodView) => Violation | undefined

export interface VersionedCheck {
  minimumVersion: Version
  checkPod: CheckPod
  /** Baseline checks this restricted one replaces from this version on. */
  overrides?: readonly string[]
}

export interface Check {
  id: string
  level: Exclude<Level, 'privileged'>
  /** Oldest first. */
  versions: readonly VersionedCheck[]
}

/** Every container of the pod: init containers, containers, then ephemeral containers. */
export function containersOf (spec: AnyObject): AnyObject[] {
  const list = (v: unknown): AnyObject[] => Array.isArray(v) ? v.filter(c => typeof c === 'object' && c !== null) : []
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]
}

export const securityContext = (o: AnyObject): AnyObject | undefined =>
  typeof o.securityContext === 'object' && o.securityContext !== null ? o.securityContext : undefined

/** `"a", "b"`, as the reference library joins names. */
export const joinQuote = (items: readonly string[]): string => items.length === 0 ? '' : `"${items.join('", "')}"`

export const pluralize = (singular: string, plural: string, count: number): string => count === 1 ? singular : plural

/** `container "a"` or `containers "a", "b"`. */
export const containerNames = (names: readonly string[]): string => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`

/** Distinct values, sorted as the reference library's string sets list them (byte order). */
export const sortedSet = (values: Iterable<string>): string[] => [...new Set(values)].sort()

/** A Go `%q` of a string: double quotes, with backslashes, quotes and control characters escaped. */
export function goQuote (s: string): string {
  let out = '"'
  for (const ch of s) {
    const code = ch.codePointAt(0)!
    if (ch === '"' || ch === '\\') out += `\\${ch}`
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\r') out += '\\r'
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`
    else out += ch
  }
  return `${out}"`
}

export const isWindows = (spec: AnyObject): boolean => spec.os?.name === 'windows'

/** From 1.25 on, restricted checks of Linux-only fields pass pods that declare spec.os.name windows. */
export const exceptWindows = (check: CheckPod): CheckPod => (pod) => isWindows(pod.spec) ? undefined : check(pod)
