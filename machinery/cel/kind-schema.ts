// A kind's declared schema (the TypeBox JSON Schema a resources/ file declares, or the schema a
// CRD version publishes) read as the structural schema the CEL model types: the JSON Schema
// forms TypeBox writes are folded into their OpenAPI meaning first, as the published documents
// spell them (a nullable union is its one type, a union of constants a string enum, integer or
// string int-or-string, a Record `patternProperties` map is `additionalProperties`).
import type { StructuralSchema } from './schema.js'
import { toStructural } from './structural.js'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

function unionMeaning (variants: unknown[], node: Json): Json {
  const real = variants.filter(v => isObject(v) && v.type !== 'null') as Json[]
  if (real.length === 1) return { ...openApiForm(real[0]!), ...(node['x-kubernetes-int-or-string'] === true ? { 'x-kubernetes-int-or-string': true } : {}) }
  if (real.length > 0 && real.every(v => typeof v.const === 'string')) return { type: 'string', enum: real.map(v => v.const) }
  const types = new Set(real.map(v => v.type))
  if (node['x-kubernetes-int-or-string'] === true || (types.size === 2 && types.has('integer') && types.has('string'))) {
    return { 'x-kubernetes-int-or-string': true }
  }
  // Anything else is open, as OpenAPI publishes it.
  return { 'x-kubernetes-preserve-unknown-fields': true }
}

const converted = new WeakMap<object, Json>()

/** One node in its OpenAPI form; only the keywords the CEL model reads are carried. */
function openApiForm (node: Json): Json {
  const hit = converted.get(node)
  if (hit !== undefined) return hit
  let out: Json
  if (node.type === undefined && Array.isArray(node.anyOf)) out = unionMeaning(node.anyOf, node)
  else if (node.const !== undefined && node.type === undefined) out = { type: typeof node.const === 'number' ? 'number' : typeof node.const }
  else {
    out = { ...node }
    delete out.anyOf
    delete out.allOf
    delete out['x-kubernetes-validations']
    if (isObject(node.properties)) out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, isObject(v) ? openApiForm(v) : v]))
    if (isObject(node.items)) out.items = openApiForm(node.items)
    const pattern = isObject(node.patternProperties) ? Object.values(node.patternProperties)[0] : undefined
    const values = pattern ?? node.additionalProperties
    if (isObject(values)) out.additionalProperties = openApiForm(values)
    delete out.patternProperties
  }
  converted.set(node, out)
  return out
}

const structural = new WeakMap<object, StructuralSchema>()

/** The structural schema of a kind's declared schema (cached per schema object). */
export function kindStructuralSchema (schema: unknown): StructuralSchema {
  if (!isObject(schema)) return {}
  let s = structural.get(schema)
  if (s === undefined) {
    s = toStructural(openApiForm(schema))
    structural.set(schema, s)
  }
  return s
}
