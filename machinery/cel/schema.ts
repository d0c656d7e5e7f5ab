// The structural OpenAPI schema as the CEL model reads it (a subset of JSONSchemaProps).
export interface StructuralSchema {
  type?: string
  format?: string
  properties?: Record<string, StructuralSchema>
  additionalProperties?: StructuralSchema | boolean
  items?: StructuralSchema
  required?: string[]
  maxItems?: number
  maxProperties?: number
  maxLength?: number
  'x-kubernetes-preserve-unknown-fields'?: boolean
  'x-kubernetes-int-or-string'?: boolean
  'x-kubernetes-embedded-resource'?: boolean
  'x-kubernetes-list-type'?: string
  'x-kubernetes-list-map-keys'?: string[]
  'x-kubernetes-map-type'?: string
  /** read by the cost estimate: a string enum's longest value bounds its size */
  enum?: unknown[]
  /** read by the cost estimate: a required property with a default need not be serialized */
  default?: unknown
  'x-kubernetes-validations'?: unknown[]
  /** only the validator reads it: rules inside allOf run against the node they are under */
  allOf?: StructuralSchema[]
}

// The reference's escaping of property names that are CEL keywords or not identifiers
// (apiserver/pkg/cel/escaping.go): a name that cannot be escaped is not accessible from CEL.
const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'])

export function escapeFieldName (name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined
  let out = ''
  let i = 0
  while (i < name.length) {
    if (name.startsWith('__', i)) { out += '__underscores__'; i += 2; continue }
    const c = name[i]
    out += c === '.' ? '__dot__' : c === '-' ? '__dash__' : c === '/' ? '__slash__' : c
    i++
  }
  return out
}
