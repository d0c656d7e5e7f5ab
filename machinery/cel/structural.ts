// A CRD schema as decoded JSON (apiextensions JSONSchemaProps), read into the StructuralSchema the
// CEL model works on, and its x-kubernetes-validations entries read into rules. Both are total:
// whatever shape the JSON has, the walkers below see only well-typed keywords.
import type { StructuralSchema } from './schema.js'
import type { ValidationRule } from '../openapi-schema/types.js'

/** One x-kubernetes-validations entry as written, every field checked for its JSON type. */
export type RuleEntry = ValidationRule

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown): string | undefined => typeof v === 'string' ? v : undefined
const num = (v: unknown): number | undefined => typeof v === 'number' && Number.isFinite(v) ? v : undefined
const strings = (v: unknown): string[] | undefined => Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined

const cache = new WeakMap<object, StructuralSchema>()

export function toStructural (s: unknown): StructuralSchema {
  if (!isObject(s)) return {}
  const hit = cache.get(s)
  if (hit !== undefined) return hit
  const out: StructuralSchema = {}
  cache.set(s, out)
  if (str(s.type) !== undefined) out.type = s.type as string
  if (str(s.format) !== undefined) out.format = s.format as string
  for (const k of ['maxItems', 'maxProperties', 'maxLength'] as const) if (num(s[k]) !== undefined) out[k] = s[k] as number
  for (const k of ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string', 'x-kubernetes-embedded-resource'] as const) {
    if (s[k] === true) out[k] = true
  }
  if (str(s['x-kubernetes-list-type']) !== undefined) out['x-kubernetes-list-type'] = s['x-kubernetes-list-type'] as string
  if (str(s['x-kubernetes-map-type']) !== undefined) out['x-kubernetes-map-type'] = s['x-kubernetes-map-type'] as string
  const keys = strings(s['x-kubernetes-list-map-keys'])
  if (keys !== undefined) out['x-kubernetes-list-map-keys'] = keys
  const required = strings(s.required)
  if (required !== undefined) out.required = required
  if (Array.isArray(s.enum)) out.enum = s.enum
  if (Object.hasOwn(s, 'default')) out.default = s.default
  if (isObject(s.items)) out.items = toStructural(s.items)
  if (isObject(s.additionalProperties)) out.additionalProperties = toStructural(s.additionalProperties)
  else if (typeof s.additionalProperties === 'boolean') out.additionalProperties = s.additionalProperties
  if (isObject(s.properties)) {
    const props: Record<string, StructuralSchema> = {}
    for (const [k, v] of Object.entries(s.properties)) Object.defineProperty(props, k, { value: toStructural(v), enumerable: true, writable: true, configurable: true })
    out.properties = props
  }
  if (Array.isArray(s['x-kubernetes-validations'])) out['x-kubernetes-validations'] = s['x-kubernetes-validations']
  if (Array.isArray(s.allOf)) out.allOf = s.allOf.filter(isObject).map(toStructural)
  return out
}

/** The rules of one node; an entry that is not an object reads as an empty rule. */
export function ruleEntries (s: StructuralSchema): RuleEntry[] {
  const list = s['x-kubernetes-validations'] ?? []
  return list.map((e) => {
    if (!isObject(e)) return { rule: '' }
    const r: RuleEntry = { rule: str(e.rule) ?? '' }
    for (const k of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) if (str(e[k]) !== undefined) r[k] = e[k] as string
    if (typeof e.optionalOldSelf === 'boolean') r.optionalOldSelf = e.optionalOldSelf
    return r
  })
}

/** Whether any node of the schema carries rules; as the reference, rules inside allOf do not count. */
export function hasRules (s: StructuralSchema | undefined): boolean {
  if (s === undefined) return false
  if ((s['x-kubernetes-validations']?.length ?? 0) > 0) return true
  if (hasRules(s.items)) return true
  if (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties)) return true
  return Object.values(s.properties ?? {}).some(hasRules)
}

/**
 * Whether the CEL model gives the node a type (the reference's SchemaDeclType is not nil): rules
 * on a node without one, or on a property whose name CEL cannot spell, are never run.
 */
export function hasCelType (s: StructuralSchema): boolean {
  if (s['x-kubernetes-int-or-string'] === true) return true
  switch (s.type) {
    case 'array': return s.items !== undefined && hasCelType(s.items)
    case 'object': return typeof s.additionalProperties !== 'object' || hasCelType(s.additionalProperties)
    case 'string': case 'boolean': case 'number': case 'integer': return true
    default: return false
  }
}
