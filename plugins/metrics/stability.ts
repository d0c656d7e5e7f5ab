// The metric stability framework (the reference server's component-base rules): every metric
// is ALPHA, BETA or STABLE, says so in its HELP text, and a deprecated one says since when. Three
// releases after its deprecation a metric is hidden; `--show-hidden-metrics-for-version` with
// the previous release brings back the ones hidden in this release, for one more release.
import { API_LEVEL } from '../../resources/naming.js'

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE'

export interface MetricDefinition {
  name: string
  help: string
  stability: StabilityLevel
  /** The release ("1.30" or "1.30.0") the metric was deprecated in. */
  deprecatedVersion?: string
}

/** Releases a deprecated metric stays visible after its deprecation. */
export const HIDE_AFTER_RELEASES = 3

export interface Release { major: number, minor: number }

export const CURRENT_RELEASE: Release = { major: Number(API_LEVEL.major), minor: Number(API_LEVEL.minor) }

export function parseRelease (text: string): Release {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(text.trim())
  if (m === null) throw new Error(`invalid version "${text}": want <major>.<minor>, such as 1.32`)
  return { major: Number(m[1]), minor: Number(m[2]) }
}

const releaseText = (r: Release): string => `${r.major}.${r.minor}`

/** HELP as the reference server writes it: `[STABLE] (Deprecated since 1.30.0) <help>`. */
export function annotatedHelp (def: MetricDefinition): string {
  const deprecated = def.deprecatedVersion === undefined ? '' : `(Deprecated since ${releaseText(parseRelease(def.deprecatedVersion))}.0) `
  return `[${def.stability}] ${deprecated}${def.help}`
}

/**
 * The release whose hidden metrics an operator may show again: only the one before the current
 * (`--show-hidden-metrics-for-version` is a way to buy one release, not to keep old metrics).
 */
export function checkShowHiddenFor (text: string | undefined, current: Release = CURRENT_RELEASE): Release | undefined {
  if (text === undefined || text === '') return undefined
  const wanted = parseRelease(text)
  const previous = { major: current.major, minor: current.minor - 1 }
  if (wanted.major !== previous.major || wanted.minor !== previous.minor) {
    throw new Error(`--show-hidden-metrics-for-version must be omitted or have the value '${releaseText(previous)}'; only the previous minor version is allowed (got "${text}")`)
  }
  return wanted
}

/**
 * Whether a metric is left out of /metrics: deprecated at least three releases ago. The ones
 * hidden exactly in this release come back when the operator names the previous release.
 */
export function isHidden (def: MetricDefinition, showHiddenFor: Release | undefined, current: Release = CURRENT_RELEASE): boolean {
  if (def.deprecatedVersion === undefined) return false
  const deprecated = parseRelease(def.deprecatedVersion)
  if (deprecated.major !== current.major) return deprecated.major < current.major
  const age = current.minor - deprecated.minor
  if (age < HIDE_AFTER_RELEASES) return false
  return !(age === HIDE_AFTER_RELEASES && showHiddenFor !== undefined)
}
