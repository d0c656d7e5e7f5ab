// A schema as the walkers may trust it: every keyword of the kind JSONSchemaProps declares,
// the others dropped. CRD validation refuses such schemas before they are served; this keeps
// the library total on whatever it is handed. Each schema object is normalized once.
import type { JSONSchemaProps } from './types.js'
import { isObject, setKey } from './types.js'

const NUMBERS = ['maximum', 'minimum', 'multipleOf', 'maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'] as const
const BOOLEANS = ['nullable', 'exclusiveMaximum', 'exclusiveMinimum', 'uniqueItems', 'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'] as const
const STRINGS = ['type', 'format', 'pattern', 'x-kubernetes-list-type', 'x-kubernetes-map-type'] as const
const LISTS = ['allOf', 'anyOf', 'oneOf'] as const

const cache = new WeakMap<object, JSONSchemaProps>()

const strings = (v: unknown): string[] | undefined => Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined

export function normalize (s: unknown): JSONSchemaProps {
  if (!isObject(s)) return {}
  const cached = cache.get(s)
  if (cached !== undefined) return cached
  const out: Record<string, unknown> = {}
  cache.set(s, out)
  for (const k of NUMBERS) if (typeof s[k] === 'number' && Number.isFinite(s[k])) out[k] = s[k]
  for (const k of BOOLEANS) if (typeof s[k] === 'boolean') out[k] = s[k]
  for (const k of STRINGS) if (typeof s[k] === 'string') out[k] = s[k]
  for (const k of LISTS) if (Array.isArray(s[k])) out[k] = (s[k] as unknown[]).map(normalize)
  if (Object.hasOwn(s, 'default')) out.default = s.default
  if (Array.isArray(s.enum)) out.enum = s.enum
  if (strings(s.required) !== undefined) out.required = strings(s.required)
  if (strings(s['x-kubernetes-list-map-keys']) !== undefined) out['x-kubernetes-list-map-keys'] = strings(s['x-kubernetes-list-map-keys'])
  if (isObject(s.not)) out.not = normalize(s.not)
  if (isObject(s.items)) out.items = normalize(s.items)
  else if (Array.isArray(s.items)) out.items = s.items.map(normalize)
  if (typeof s.additionalProperties === 'boolean') out.additionalProperties = s.additionalProperties
  else if (isObject(s.additionalProperties)) out.additionalProperties = normalize(s.additionalProperties)
  if (isObject(s.properties)) {
    const properties: Record<string, JSONSchemaProps> = {}
    for (const [k, v] of Object.entries(s.properties)) setKey(properties, k, normalize(v))
    out.properties = properties
  }
  return out as JSONSchemaProps
}
