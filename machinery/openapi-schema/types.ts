// The schema of a CRD version as users write it (apiextensions v1 JSONSchemaProps), with the
// vendor extensions the structural rules give meaning to. Values are JSON as decoded.

export interface ValidationRule {
  rule: string
  message?: string
  messageExpression?: string
  reason?: string
  fieldPath?: string
  optionalOldSelf?: boolean
}

export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | string
  format?: string
  description?: string
  title?: string
  default?: unknown
  example?: unknown
  nullable?: boolean
  enum?: unknown[]

  maximum?: number
  exclusiveMaximum?: boolean
  minimum?: number
  exclusiveMinimum?: boolean
  multipleOf?: number

  maxLength?: number
  minLength?: number
  pattern?: string

  maxItems?: number
  minItems?: number
  uniqueItems?: boolean
  items?: JSONSchemaProps | JSONSchemaProps[]

  maxProperties?: number
  minProperties?: number
  required?: string[]
  properties?: Record<string, JSONSchemaProps>
  additionalProperties?: JSONSchemaProps | boolean

  allOf?: JSONSchemaProps[]
  oneOf?: JSONSchemaProps[]
  anyOf?: JSONSchemaProps[]
  not?: JSONSchemaProps

  'x-kubernetes-preserve-unknown-fields'?: boolean
  'x-kubernetes-embedded-resource'?: boolean
  'x-kubernetes-int-or-string'?: boolean
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map'
  'x-kubernetes-list-map-keys'?: string[]
  'x-kubernetes-map-type'?: 'atomic' | 'granular'
  'x-kubernetes-validations'?: ValidationRule[]
}

export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue }

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The schema of every item, when `items` is one schema (the only form structural schemas allow). */
export const itemsOf = (s: JSONSchemaProps | undefined): JSONSchemaProps | undefined =>
  s === undefined || Array.isArray(s.items) ? undefined : s.items

/** The schema of a property, else of additionalProperties when that is a schema. */
export function propertySchema (s: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
  if (s === undefined) return undefined
  if (s.properties !== undefined && Object.hasOwn(s.properties, key)) return s.properties[key]
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined
}

export const hasProperty = (s: JSONSchemaProps, key: string): boolean =>
  s.properties !== undefined && Object.hasOwn(s.properties, key)

// Keys such as `__proto__` are legal in custom objects: define, never assign.
export function setKey (obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
}

export const deepCopy = <T>(v: T): T => v === undefined ? v : structuredClone(v)
