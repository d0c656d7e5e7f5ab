// --runtime-config: which group versions (and single resources) are served, decided at start.
// Keys: `api/all`, `api/ga`, `api/beta`, `api/alpha`, `<group>/<version>` (`api/v1` or `v1` for
// the core group) and `<group>/<version>/<resource>`; a value is true or false, omitted meaning
// true. The more specific key wins. A disabled kind is still stored and used by the server's own
// controllers; it is only absent from discovery and OpenAPI, and its paths answer 404.
import { levelOf, removedVersion, TYPE_ONLY_GROUP_VERSIONS, type ApiLevel } from '../resources/api-versions.js'

export interface RuntimeConfig {
  /**
   * Whether `<group>/<version>/<plural>` is served: as a key says, else alpha and removed
   * versions are off and the rest on.
   */
  served (group: string, version: string, plural: string, removed?: boolean): boolean
  /** Refuses keys that name nothing served (called once every kind is registered). */
  check (kinds: ReadonlyArray<{ group: string, version: string, plural: string, olderVersions?: ReadonlyArray<{ version: string }>, servedAs?: ReadonlyArray<{ group: string, version: string }> }>): void
}

interface Entry { key: string, enabled: boolean }

const gv = (group: string, version: string): string => group === '' ? `api/${version}` : `${group}/${version}`

/** The key as the reference server spells its own; `v1` and `api/v1` are the core group. */
function normalize (key: string): string {
  if (key === 'v1') return 'api/v1'
  if (key.startsWith('v1/')) return `api/${key}`
  return key
}

export function parseRuntimeConfig (items: readonly string[]): RuntimeConfig {
  const entries: Entry[] = []
  for (const item of items) {
    if (item.trim() === '') continue
    const eq = item.indexOf('=')
    const key = normalize((eq === -1 ? item : item.slice(0, eq)).trim())
    const value = eq === -1 ? 'true' : item.slice(eq + 1).trim()
    if (value !== 'true' && value !== 'false') throw new Error(`--runtime-config: invalid value "${value}" for ${key}: want true or false`)
    const enabled = value === 'true'
    if (key === 'api/legacy' || key === 'api/v1') {
      if (!enabled) throw new Error(`--runtime-config: ${key} cannot be disabled: the core group is what every client and controller needs`)
      continue
    }
    const parts = key.split('/')
    if (parts.length < 2 || parts.length > 3 || parts.some(p => p === '')) throw new Error(`--runtime-config: invalid key "${key}": want api/all, api/ga, api/beta, api/alpha, <group>/<version> or <group>/<version>/<resource>`)
    if (enabled && parts[0] !== 'api') {
      const removed = removedVersion(parts[0]!, parts[1]!, parts[2])
      if (removed !== undefined) {
        throw new Error(`--runtime-config: ${key} cannot be enabled: ${parts[0]}/${parts[1]}${parts[2] === undefined ? '' : ` ${parts[2]}`} was removed in v${removed.removed}; use ${removed.replacement}`)
      }
    }
    entries.push({ key, enabled })
  }

  const lookup = (key: string): boolean | undefined => {
    let found: boolean | undefined
    for (const e of entries) if (e.key === key) found = e.enabled
    return found
  }
  const LEVEL_KEY: Record<ApiLevel, string> = { ga: 'api/ga', beta: 'api/beta', alpha: 'api/alpha' }

  return {
    served (group, version, plural, removed = false) {
      if (group === '') return true
      return lookup(`${gv(group, version)}/${plural}`) ??
        lookup(gv(group, version)) ??
        (removed ? false : undefined) ??
        lookup(LEVEL_KEY[levelOf(version)]) ??
        lookup('api/all') ??
        // Alpha versions are off unless asked for; beta and GA ones are on.
        levelOf(version) !== 'alpha'
    },
    check (kinds) {
      for (const { key, enabled } of entries) {
        if (key.startsWith('api/')) {
          if (!['api/all', 'api/ga', 'api/beta', 'api/alpha'].includes(key)) throw new Error(`--runtime-config: unknown key "${key}"`)
          continue
        }
        const [group, version, resource] = key.split('/') as [string, string, string | undefined]
        if (resource === undefined && TYPE_ONLY_GROUP_VERSIONS.includes(key)) continue
        const known = kinds.some(k => (resource === undefined || k.plural === resource) &&
          ((k.group === group && (k.version === version || (k.olderVersions ?? []).some(o => o.version === version))) ||
            (k.servedAs ?? []).some(c => c.group === group && c.version === version)))
        if (known) continue
        // Turning off what is gone already is harmless.
        if (!enabled && removedVersion(group, version, resource) !== undefined) continue
        const what = resource === undefined ? `group version ${group}/${version}` : `resource ${resource} in ${group}/${version}`
        throw new Error(`--runtime-config: unknown ${what}`)
      }
    }
  }
}
