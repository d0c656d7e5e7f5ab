// The rules a CustomResourceDefinition's openAPIV3Schema must follow to be accepted: the
// reference's OpenAPI v3 subset (validation.go's specStandardValidatorV3) and its structural
// invariants (apiserver/schema/validation.go), with its field paths and messages. Value
// validation against the schema (defaults included) is the schema library's, not this file's.
import { RE2JS } from 're2js'
import type { FieldError } from './status.js'

type Schema = Record<string, any>
type Level = 'root' | 'item' | 'field'

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string']
const LIST_TYPES = ['atomic', 'set', 'map']
const MAP_TYPES = ['atomic', 'granular']
/** What a root schema may hold beside properties when the status subresource is on (the Go field names the message prints). */
const ALLOWED_AT_ROOT: Record<string, string> = {
  description: 'Description', type: 'Type', format: 'Format', title: 'Title', maximum: 'Maximum', exclusiveMaximum: 'ExclusiveMaximum',
  minimum: 'Minimum', exclusiveMinimum: 'ExclusiveMinimum', maxLength: 'MaxLength', minLength: 'MinLength', pattern: 'Pattern',
  maxItems: 'MaxItems', minItems: 'MinItems', uniqueItems: 'UniqueItems', multipleOf: 'MultipleOf', required: 'Required', items: 'Items',
  properties: 'Properties', externalDocs: 'ExternalDocs', example: 'Example', 'x-kubernetes-preserve-unknown-fields': 'XPreserveUnknownFields',
  'x-kubernetes-validations': 'XValidations'
}
const ALLOWED_AT_ROOT_TEXT = `[${Object.values(ALLOWED_AT_ROOT).join(' ')}]`

const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v)
const key = (path: string, k: string): string => `${path}[${k}]`
const isZero = (v: unknown): boolean => v === undefined || v === null || v === false || v === 0 || v === '' ||
  (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0)

/** Every error of one version's schema at `path` (`spec.versions[0].schema.openAPIV3Schema`). */
export function validateCrdSchema (schema: Schema, path: string, statusEnabled: boolean): FieldError[] {
  const errors: FieldError[] = []
  if (statusEnabled) {
    for (const [k, v] of Object.entries(schema)) {
      if (isZero(v)) continue
      if (k === 'type') {
        if (v !== 'object') { errors.push({ type: 'Invalid', field: `${path}.type`, value: v, detail: 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled' }); break }
        continue
      }
      if (ALLOWED_AT_ROOT[k] === undefined) {
        errors.push({ type: 'Invalid', field: path, value: schema, detail: `only ${ALLOWED_AT_ROOT_TEXT} fields are allowed at the root of the schema if the status subresource is enabled` })
        break
      }
    }
  }
  errors.push(...openApiSubset(schema, path))
  // The reference sorts structural errors by their text, its maps being unordered.
  const structural = [...structuralInvariants(schema, 'root', path), ...completeness(schema, path)]
  structural.sort((a, b) => `${a.field}: ${a.detail}` < `${b.field}: ${b.detail}` ? -1 : 1)
  return [...errors, ...structural]
}

/** The OpenAPI v3 subset CRDs accept and the list and map markers, on every node. */
function openApiSubset (s: Schema | undefined, path: string): FieldError[] {
  if (!isObj(s)) return []
  const errors: FieldError[] = []
  const forbid = (field: string, detail: string) => errors.push({ type: 'Forbidden', field: `${path}.${field}`, detail })
  if (typeof s.id === 'string' && s.id !== '') forbid('id', 'id is not supported')
  if (s.additionalItems !== undefined) forbid('additionalItems', 'additionalItems is not supported')
  if (isObj(s.patternProperties) && Object.keys(s.patternProperties).length > 0) forbid('patternProperties', 'patternProperties is not supported')
  if (isObj(s.definitions) && Object.keys(s.definitions).length > 0) forbid('definitions', 'definitions is not supported')
  if (s.dependencies !== undefined) forbid('dependencies', 'dependencies is not supported')
  if (s.$ref !== undefined) forbid('$ref', '$ref is not supported')
  if (s.type === 'null') forbid('type', 'type cannot be set to null, use nullable as an alternative')
  else if (typeof s.type === 'string' && s.type !== '' && !OPENAPI_V3_TYPES.includes(s.type)) {
    errors.push({ type: 'NotSupported', field: `${path}.type`, value: s.type, supported: OPENAPI_V3_TYPES })
  }
  if (Array.isArray(s.items)) forbid('items', 'items must be a schema object and not an array')
  if (s.uniqueItems === true) forbid('uniqueItems', 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic')
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errors.push({ type: 'Invalid', field: `${path}.x-kubernetes-preserve-unknown-fields`, value: false, detail: 'must be true or undefined' })
  }
  // properties are for structs, additionalProperties for maps: together they contradict ignoring unknown fields.
  const props = isObj(s.properties) ? s.properties : {}
  if (s.additionalProperties !== undefined && Object.keys(props).length > 0 && (s.additionalProperties === false || isObj(s.additionalProperties))) {
    forbid('additionalProperties', 'additionalProperties and properties are mutual exclusive')
  }
  errors.push(...listAndMapMarkers(s, path))
  if (isObj(s.additionalProperties)) errors.push(...openApiSubset(s.additionalProperties, `${path}.additionalProperties`))
  for (const k of Object.keys(props).sort()) errors.push(...openApiSubset(props[k], key(`${path}.properties`, k)))
  if (isObj(s.items)) errors.push(...openApiSubset(s.items, `${path}.items`))
  errors.push(...openApiSubset(s.not, `${path}.not`))
  for (const junctor of ['allOf', 'oneOf', 'anyOf']) {
    if (Array.isArray(s[junctor])) s[junctor].forEach((sub: Schema, i: number) => errors.push(...openApiSubset(sub, `${path}.${junctor}[${i}]`)))
  }
  return errors
}

function listAndMapMarkers (s: Schema, path: string): FieldError[] {
  const errors: FieldError[] = []
  const listType = s['x-kubernetes-list-type']
  const mapKeys: unknown[] = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : []
  const lt = `${path}.x-kubernetes-list-type`
  const mk = `${path}.x-kubernetes-list-map-keys`
  if (listType !== undefined && listType !== null && !LIST_TYPES.includes(listType)) errors.push({ type: 'NotSupported', field: lt, value: listType, supported: LIST_TYPES })
  if (listType !== undefined && listType !== null && s.type !== 'array') errors.push({ type: 'Invalid', field: lt, value: listType, detail: 'must only be used on array types' })
  if (mapKeys.length > 0) {
    if (listType === undefined || listType === null) errors.push({ type: 'Required', field: lt, detail: 'must be map if x-kubernetes-list-map-keys is non-empty' })
    else if (listType !== 'map') errors.push({ type: 'Invalid', field: lt, value: listType, detail: 'must be map if x-kubernetes-list-map-keys is non-empty' })
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errors.push({ type: 'Required', field: mk, detail: 'must not be empty if x-kubernetes-list-type is map' })
    if (s.items === undefined || s.items === null) errors.push({ type: 'Required', field: `${path}.items`, detail: 'must have a schema if x-kubernetes-list-type is map' })
    else if (!isObj(s.items)) errors.push({ type: 'Invalid', field: `${path}.items`, value: s.items, detail: 'must only have a single schema if x-kubernetes-list-type is map' })
    else if (s.items.type !== 'object') errors.push({ type: 'Invalid', field: `${path}.items.type`, value: s.items.type ?? '', detail: "must be object if parent array's x-kubernetes-list-type is map" })
    else {
      const seen = new Set<unknown>()
      const itemProps = isObj(s.items.properties) ? s.items.properties : {}
      for (const k of mapKeys) {
        const p = typeof k === 'string' ? itemProps[k] : undefined
        if (p === undefined) errors.push({ type: 'Invalid', field: mk, value: mapKeys, detail: 'entries must all be names of item properties' })
        else if (p.type === 'array' || p.type === 'object') {
          errors.push({ type: 'Invalid', field: `${path}.items.properties[${String(k)}].type`, value: s.items.type, detail: "must be a scalar type if parent array's x-kubernetes-list-type is map" })
        }
        if (seen.has(k)) errors.push({ type: 'Invalid', field: mk, value: mapKeys, detail: 'must not contain duplicate entries' })
        seen.add(k)
      }
    }
  }
  const mapType = s['x-kubernetes-map-type']
  if (mapType !== undefined && mapType !== null) {
    if (s.type !== 'object') {
      if (s.type === undefined || s.type === '') errors.push({ type: 'Required', field: `${path}.type`, detail: 'must be object if x-kubernetes-map-type is specified' })
      else errors.push({ type: 'Invalid', field: `${path}.type`, value: s.type, detail: 'must be object if x-kubernetes-map-type is specified' })
    }
    if (!MAP_TYPES.includes(mapType)) errors.push({ type: 'NotSupported', field: `${path}.x-kubernetes-map-type`, value: mapType, supported: MAP_TYPES })
  }
  return errors
}

/** A junctor's sub-schema `anyOf: [{type: integer}, {type: string}]`, the int-or-string exception. */
const isIntOrStringPair = (list: unknown): boolean => Array.isArray(list) && list.length === 2 &&
  isObj(list[0]) && isObj(list[1]) && Object.keys(list[0]).length === 1 && Object.keys(list[1]).length === 1 &&
  list[0].type === 'integer' && list[1].type === 'string'

/** validateStructuralInvariants: every node typed, metadata restricted, embedded resources objects. */
function structuralInvariants (s: Schema | undefined, lvl: Level, path: string): FieldError[] {
  if (!isObj(s)) return []
  const errors: FieldError[] = []
  const type = typeof s.type === 'string' ? s.type : ''
  const intOrString = s['x-kubernetes-int-or-string'] === true
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true
  const embedded = s['x-kubernetes-embedded-resource'] === true
  const props: Schema = isObj(s.properties) ? s.properties : {}
  if (type === 'array' && (s.items === undefined || s.items === null)) errors.push({ type: 'Required', field: `${path}.items`, detail: 'must be specified' })
  if (isObj(s.items)) errors.push(...structuralInvariants(s.items, 'item', `${path}.items`))
  for (const [k, v] of Object.entries(props)) errors.push(...structuralInvariants(v, 'field', key(`${path}.properties`, k)))
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === 'root') errors.push({ type: 'Forbidden', field: `${path}.additionalProperties`, detail: 'must not be used at the root' })
    if (isObj(s.additionalProperties)) errors.push(...structuralInvariants(s.additionalProperties, 'field', `${path}.additionalProperties`))
  }
  if (intOrString && preserve) errors.push({ type: 'Invalid', field: `${path}.x-kubernetes-preserve-unknown-fields`, value: true, detail: 'must be false if x-kubernetes-int-or-string is true' })
  if (intOrString && embedded) errors.push({ type: 'Invalid', field: `${path}.x-kubernetes-embedded-resource`, value: true, detail: 'must be false if x-kubernetes-int-or-string is true' })
  const skipAnyOf = isIntOrStringPair(s.anyOf)
  const skipFirstAllOfAnyOf = Array.isArray(s.allOf) && isObj(s.allOf[0]) && isIntOrStringPair(s.allOf[0].anyOf)
  errors.push(...valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, path))
  const checkMetadata = lvl === 'root' || embedded
  if (embedded && type !== 'object') {
    if (type === '') errors.push({ type: 'Required', field: `${path}.type`, detail: 'must be object if x-kubernetes-embedded-resource is true' })
    else errors.push({ type: 'Invalid', field: `${path}.type`, value: type, detail: 'must be object if x-kubernetes-embedded-resource is true' })
  } else if (type === '' && !intOrString && !preserve) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields'
    errors.push({ type: 'Required', field: `${path}.type`, detail })
  }
  if (embedded && s.additionalProperties !== undefined && s.additionalProperties !== null) {
    errors.push({ type: 'Forbidden', field: `${path}.additionalProperties`, detail: 'must not be used if x-kubernetes-embedded-resource is set' })
  }
  if (lvl === 'root' && type !== '' && type !== 'object') errors.push({ type: 'Invalid', field: `${path}.type`, value: type, detail: 'must be object at the root' })
  if (checkMetadata) {
    for (const f of ['kind', 'apiVersion']) {
      if (props[f] !== undefined && props[f]?.type !== 'string') errors.push({ type: 'Invalid', field: `${key(`${path}.properties`, f)}.type`, value: props[f]?.type ?? '', detail: 'must be string' })
    }
    if (props.metadata !== undefined && props.metadata?.type !== 'object') errors.push({ type: 'Invalid', field: `${key(`${path}.properties`, 'metadata')}.type`, value: props.metadata?.type ?? '', detail: 'must be object' })
  }
  if (lvl === 'root' && isObj(props.metadata) && !onlyNameConstraints(props.metadata)) {
    errors.push({ type: 'Forbidden', field: key(`${path}.properties`, 'metadata'), detail: 'must not specify anything other than name and generateName, but metadata is implicitly specified' })
  }
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errors.push({ type: 'Required', field: `${path}.properties`, detail: 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields' })
  }
  return errors
}

/** Whether a root metadata schema says no more than its type and constraints on name and generateName (the reference's check, as it drops those and compares with empty). */
function onlyNameConstraints (metadata: Schema): boolean {
  const props = isObj(metadata.properties) ? Object.keys(metadata.properties) : []
  if (props.some(p => p !== 'name' && p !== 'generateName')) return false
  return Object.entries(metadata).every(([k, v]) => k === 'type' || k === 'properties' || k === 'default' || isZero(v))
}

/** validateValueValidation: junctors may constrain values but not declare structure. */
function valueValidation (v: Schema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string): FieldError[] {
  const errors: FieldError[] = []
  if (!skipAnyOf && Array.isArray(v.anyOf)) v.anyOf.forEach((n: Schema, i: number) => errors.push(...nestedValueValidation(n, false, `${path}.anyOf[${i}]`)))
  if (Array.isArray(v.allOf)) v.allOf.forEach((n: Schema, i: number) => errors.push(...nestedValueValidation(n, skipFirstAllOfAnyOf && i === 0, `${path}.allOf[${i}]`)))
  if (Array.isArray(v.oneOf)) v.oneOf.forEach((n: Schema, i: number) => errors.push(...nestedValueValidation(n, false, `${path}.oneOf[${i}]`)))
  errors.push(...nestedValueValidation(v.not, false, `${path}.not`))
  if (typeof v.pattern === 'string' && v.pattern !== '') {
    // Go's regexp syntax (RE2: `(?i)` flags, no lookaround), as the reference compiles patterns.
    try { RE2JS.compile(v.pattern) } catch (err) {
      errors.push({ type: 'Invalid', field: `${path}.pattern`, value: v.pattern, detail: `must be a valid regular expression, but isn't: ${(err as Error).message}` })
    }
  }
  return errors
}

function nestedValueValidation (v: Schema | undefined, skipAnyOf: boolean, path: string): FieldError[] {
  if (!isObj(v)) return []
  const errors = valueValidation(v, skipAnyOf, false, path)
  errors.push(...nestedValueValidation(v.items, false, `${path}.items`))
  const props: Schema = isObj(v.properties) ? v.properties : {}
  for (const [k, p] of Object.entries(props)) errors.push(...nestedValueValidation(p, false, key(`${path}.properties`, k)))
  const forbid = (field: string, detail: string) => errors.push({ type: 'Forbidden', field: `${path}.${field}`, detail })
  if (typeof v.type === 'string' && v.type !== '') forbid('type', 'must be empty to be structural')
  if (v.additionalProperties !== undefined && v.additionalProperties !== null) forbid('additionalProperties', 'must be undefined to be structural')
  if (v.default !== undefined && v.default !== null) forbid('default', 'must be undefined to be structural')
  if (typeof v.title === 'string' && v.title !== '') forbid('title', 'must be empty to be structural')
  if (typeof v.description === 'string' && v.description !== '') forbid('description', 'must be empty to be structural')
  if (v.nullable === true) forbid('nullable', 'must be false to be structural')
  if (v['x-kubernetes-preserve-unknown-fields'] === true) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural')
  if (v['x-kubernetes-embedded-resource'] === true) forbid('x-kubernetes-embedded-resource', 'must be false to be structural')
  if (v['x-kubernetes-int-or-string'] === true) forbid('x-kubernetes-int-or-string', 'must be false to be structural')
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0) forbid('x-kubernetes-list-map-keys', 'must be empty to be structural')
  if (v['x-kubernetes-list-type'] !== undefined && v['x-kubernetes-list-type'] !== null) forbid('x-kubernetes-list-type', 'must be undefined to be structural')
  // Reasoning about metadata in junctors could restrict it in ways the server does not honour.
  if (props.metadata !== undefined) forbid(key('properties', 'metadata'), 'must not be specified in a nested context')
  return errors
}

/** validateStructuralCompleteness: a field a junctor constrains is declared outside the junctors too. */
function completeness (s: Schema | undefined, path: string): FieldError[] {
  if (!isObj(s)) return []
  const errors = completeness(s.items, `${path}.items`)
  const props: Schema = isObj(s.properties) ? s.properties : {}
  for (const [k, v] of Object.entries(props)) errors.push(...completeness(v, key(`${path}.properties`, k)))
  errors.push(...junctorCompleteness(s, s, path, path))
  return errors
}

function junctorCompleteness (v: Schema, s: Schema, sPath: string, vPath: string): FieldError[] {
  const errors = nestedCompleteness(v.not, s, sPath, `${vPath}.not`)
  for (const junctor of ['allOf', 'anyOf', 'oneOf']) {
    if (Array.isArray(v[junctor])) v[junctor].forEach((n: Schema, i: number) => errors.push(...nestedCompleteness(n, s, sPath, `${vPath}.${junctor}[${i}]`)))
  }
  return errors
}

function nestedCompleteness (v: Schema | undefined, s: Schema | undefined, sPath: string, vPath: string): FieldError[] {
  if (!isObj(v)) return []
  if (!isObj(s)) return [{ type: 'Required', field: sPath, detail: `because it is defined in ${vPath}` }]
  const errors = junctorCompleteness(v, s, sPath, vPath)
  errors.push(...nestedCompleteness(v.items, s.items, `${sPath}.items`, `${vPath}.items`))
  const sProps: Schema = isObj(s.properties) ? s.properties : {}
  for (const [k, field] of Object.entries(isObj(v.properties) ? v.properties : {})) {
    const at = key(`${vPath}.properties`, k)
    if (isObj(sProps[k])) errors.push(...nestedCompleteness(field, sProps[k], key(`${sPath}.properties`, k), at))
    else if (isObj(s.additionalProperties)) errors.push(...nestedCompleteness(field, s.additionalProperties, `${sPath}.additionalProperties`, at))
    else errors.push({ type: 'Required', field: key(`${sPath}.properties`, k), detail: `because it is defined in ${at}` })
  }
  return errors
}

/** The schema node a simple JSON path (`.spec.replicas`) names, or undefined when the schema does not declare it. */
export function schemaAt (schema: Schema, jsonPath: string): Schema | undefined {
  let node: Schema | undefined = schema
  for (const part of jsonPath.slice(1).split('.')) {
    if (!isObj(node)) return undefined
    node = isObj(node.properties) && isObj(node.properties[part]) ? node.properties[part] : undefined
  }
  return node
}
