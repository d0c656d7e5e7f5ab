// CustomResourceDefinition (apiextensions.svc.io/v1, cluster scope): a kind users define, with its
// names, versions and schemas. Validation follows the reference's apiextensions validation.go
// (its internal field paths included, e.g. spec.conversion.webhookClientConfig).
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource } from './define.js'
import type { RequestContext } from './define.js'
import { Int32, objectSchema, Timestamp } from './meta.js'
import { AtomicList, MapList } from './core-types.js'
import { FINALIZERS, GROUPS } from './naming.js'
import type { FieldError } from './status.js'
import { dns1035LabelProblems, dnsSubdomainProblems } from './validation.js'
import { validateClientConfig, WebhookClientConfig } from './webhook-configuration.js'
import { schemaAt, validateCrdSchema } from './crd-schema-rules.js'

const opt = Type.Optional
const struct = { additionalProperties: false }
type Crd = Record<string, any>

/** A JSON Schema as the user wrote it; its rules are checked by crd-schema-rules.ts, not by the envelope schema. */
const JSONSchemaProps = Type.Record(Type.String(), Type.Unknown(), { description: 'An OpenAPI v3 schema (the reference\'s JSONSchemaProps).' })

const Names = Type.Object({
  plural: Type.String({ description: 'The plural name of the resource to serve: /apis/<group>/<version>/<plural>; all lowercase.' }),
  singular: opt(Type.String({ description: 'The singular name; defaults to the lowercased kind.' })),
  shortNames: opt(AtomicList(Type.String(), { description: 'Short names for the resource, as `kubectl get <shortname>` takes them.' })),
  kind: Type.String({ description: 'The serialized kind of the resource, CamelCase and singular.' }),
  listKind: opt(Type.String({ description: 'The serialized kind of the list; defaults to `<kind>List`.' })),
  categories: opt(AtomicList(Type.String(), { description: 'Grouped resources this resource belongs to (`all`).' }))
}, struct)

const PrinterColumn = Type.Object({
  name: Type.String(),
  type: Type.String({ description: 'integer, number, string, boolean or date.' }),
  format: opt(Type.String()),
  description: opt(Type.String()),
  priority: opt(Int32()),
  jsonPath: Type.String({ description: 'A simple JSON path (`.spec.replicas`) evaluated against each object.' })
}, struct)

const Scale = Type.Object({
  specReplicasPath: Type.String(),
  statusReplicasPath: Type.String(),
  labelSelectorPath: opt(Type.String())
}, struct)

const Version = Type.Object({
  name: Type.String({ description: 'The version name, as /apis/<group>/<version>/... serves it.' }),
  served: Type.Boolean(),
  storage: Type.Boolean({ description: 'Exactly one version is stored.' }),
  deprecated: opt(Type.Boolean()),
  deprecationWarning: opt(Type.String()),
  schema: opt(Type.Object({ openAPIV3Schema: opt(JSONSchemaProps) }, struct)),
  subresources: opt(Type.Object({
    status: opt(Type.Object({}, struct)),
    scale: opt(Scale)
  }, struct)),
  additionalPrinterColumns: opt(AtomicList(PrinterColumn)),
  selectableFields: opt(AtomicList(Type.Object({ jsonPath: Type.String() }, struct)))
}, struct)

const Conversion = Type.Object({
  strategy: Type.String({ description: 'None or Webhook.' }),
  webhook: opt(Type.Object({
    clientConfig: opt(WebhookClientConfig),
    conversionReviewVersions: opt(AtomicList(Type.String()))
  }, struct))
}, struct)

const CrdCondition = Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
  reason: opt(Type.String()),
  message: opt(Type.String())
}, struct)

const schema = objectSchema(`${GROUPS.apiextensions}/v1`, 'CustomResourceDefinition', {
  // Optional as the reference's JSON decoding has it: a /status write may leave it out.
  spec: opt(Type.Object({
    group: Type.String({ description: 'The API group of the defined kind.' }),
    names: Names,
    scope: Type.String({ description: 'Cluster or Namespaced.' }),
    versions: AtomicList(Version),
    conversion: opt(Conversion),
    preserveUnknownFields: opt(Type.Boolean())
  }, struct)),
  status: opt(Type.Object({
    conditions: opt(MapList(CrdCondition, ['type'])),
    acceptedNames: opt(Names),
    storedVersions: opt(AtomicList(Type.String()))
  }, struct))
}, 'CustomResourceDefinition represents a resource that should be exposed on the API server. Its name MUST be in the format <.spec.name>.<.spec.group>.')

const SCOPES = ['Cluster', 'Namespaced']
const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string']
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password']
const CONVERSION_STRATEGIES = ['None', 'Webhook']
const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1']
const MAX_SELECTABLE_FIELDS = 8
const MAX_DEPRECATION_WARNING = 256

/** The condition types and the reasons this kind itself sets; the controllers set the others. */
export const CRD_CONDITIONS = { namesAccepted: 'NamesAccepted', established: 'Established', terminating: 'Terminating' } as const

export const conditionOf = (crd: Crd, type: string): Crd | undefined =>
  (Array.isArray(crd.status?.conditions) ? crd.status.conditions : []).find((c: Crd) => c?.type === type)
export const isConditionTrue = (crd: Crd, type: string): boolean => conditionOf(crd, type)?.status === 'True'

const joinProblems = (problems: string[]): string => problems.join(',')

/** SetDefaults of apiextensions v1: singular, listKind, the None conversion, service ports. */
function applyDefaults (crd: Crd): void {
  const spec = crd.spec
  if (spec === undefined || spec === null) return
  const names = spec.names ?? {}
  if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase()
  if (!names.listKind && typeof names.kind === 'string' && names.kind !== '') names.listKind = `${names.kind}List`
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' }
  const service = spec.conversion.webhook?.clientConfig?.service
  if (service !== undefined && service !== null && service.port === undefined) service.port = 443
}

/** The storage version joins storedVersions (the reference strategy's PrepareForCreate and PrepareForUpdate). */
function recordStorageVersion (crd: Crd): void {
  const storage = (crd.spec?.versions ?? []).find((v: Crd) => v?.storage === true)
  // A copy: on update the status may still be the stored object's.
  const status = { ...(crd.status ?? {}) }
  status.acceptedNames ??= { plural: '', kind: '' }
  const stored: string[] = [...(status.storedVersions ?? [])]
  if (storage !== undefined && !stored.includes(storage.name)) stored.push(storage.name)
  crd.status = { ...status, storedVersions: stored }
}

/** ValidateCustomResourceDefinitionNames: spec.names and status.acceptedNames alike. */
function validateNames (names: Crd | undefined, path: string): FieldError[] {
  const errors: FieldError[] = []
  if (names === undefined || names === null) return errors
  const label = (field: string, value: unknown, mixedCase = false) => {
    if (typeof value !== 'string' || value === '') return
    const problems = dns1035LabelProblems(mixedCase ? value.toLowerCase() : value)
    if (problems.length > 0) errors.push({ type: 'Invalid', field: `${path}.${field}`, value, detail: (mixedCase ? 'may have mixed case, but should otherwise match: ' : '') + joinProblems(problems) })
  }
  label('plural', names.plural)
  label('singular', names.singular)
  label('kind', names.kind, true)
  label('listKind', names.listKind, true)
  ;(names.shortNames ?? []).forEach((s: string, i: number) => label(`shortNames[${i}]`, s))
  // kind and listKind may not be the same or parsing becomes ambiguous.
  if (typeof names.kind === 'string' && names.kind !== '' && names.kind === names.listKind) {
    errors.push({ type: 'Invalid', field: `${path}.listKind`, value: names.listKind, detail: 'kind and listKind may not be the same' })
  }
  ;(names.categories ?? []).forEach((c: string, i: number) => label(`categories[${i}]`, c))
  return errors
}

/** validateSimpleJSONPath: `.a.b.c`. */
function simpleJsonPathErrors (s: string, field: string): FieldError[] {
  if (s.length === 0) return [{ type: 'Invalid', field, value: s, detail: 'must not be empty' }]
  if (!s.startsWith('.')) return [{ type: 'Invalid', field, value: s, detail: 'must be a simple json path starting with .' }]
  return []
}

function validateColumn (col: Crd, path: string): FieldError[] {
  const errors: FieldError[] = []
  const types = `must be one of ${COLUMN_TYPES.join(',')}`
  if (!col.name) errors.push({ type: 'Required', field: `${path}.name`, detail: '' })
  if (!col.type) errors.push({ type: 'Required', field: `${path}.type`, detail: types })
  else if (!COLUMN_TYPES.includes(col.type)) errors.push({ type: 'Invalid', field: `${path}.type`, value: col.type, detail: types })
  if (col.format && !COLUMN_FORMATS.includes(col.format)) errors.push({ type: 'Invalid', field: `${path}.format`, value: col.format, detail: `must be one of ${COLUMN_FORMATS.join(',')}` })
  if (!col.jsonPath) errors.push({ type: 'Required', field: `${path}.JSONPath`, detail: '' })
  else errors.push(...simpleJsonPathErrors(col.jsonPath, `${path}.JSONPath`))
  return errors
}

function validateScale (scale: Crd, path: string): FieldError[] {
  const errors: FieldError[] = []
  const under = (field: string, value: string | undefined, prefixes: string[], detail: string, required: boolean) => {
    const at = `${path}.${field}`
    if (value === undefined || value === '') {
      if (required) errors.push({ type: 'Required', field: at, detail: '' })
      return
    }
    const bad = simpleJsonPathErrors(value, at)
    if (bad.length > 0) errors.push(...bad)
    else if (!prefixes.some(p => value.startsWith(p))) errors.push({ type: 'Invalid', field: at, value, detail })
  }
  under('specReplicasPath', scale.specReplicasPath, ['.spec.'], 'should be a json path under .spec', true)
  under('statusReplicasPath', scale.statusReplicasPath, ['.status.'], 'should be a json path under .status', true)
  under('labelSelectorPath', scale.labelSelectorPath, ['.spec.', '.status.'], 'should be a json path under either .spec or .status', false)
  return errors
}

function validateSelectableFields (fields: Crd[], schema: Crd | undefined, path: string): FieldError[] {
  const errors: FieldError[] = []
  if (fields.length > MAX_SELECTABLE_FIELDS) errors.push({ type: 'TooMany', field: path, detail: `must have at most ${MAX_SELECTABLE_FIELDS} items` })
  const seen = new Set<string>()
  fields.forEach((f, i) => {
    const at = `${path}[${i}].jsonPath`
    if (!f?.jsonPath) { errors.push({ type: 'Required', field: at, detail: '' }); return }
    const bad = simpleJsonPathErrors(f.jsonPath, at)
    if (bad.length > 0) { errors.push(...bad); return }
    if (seen.has(f.jsonPath)) errors.push({ type: 'Duplicate', field: at, value: f.jsonPath })
    seen.add(f.jsonPath)
    if (schema === undefined) return
    const node = schemaAt(schema, f.jsonPath)
    if (node === undefined) errors.push({ type: 'Invalid', field: at, value: f.jsonPath, detail: 'is an invalid path: does not refer to a valid field' })
    else if (!['string', 'integer', 'boolean'].includes(node.type)) {
      errors.push({ type: 'Invalid', field: at, value: f.jsonPath, detail: 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.' })
    }
  })
  return errors
}

/** validateDeprecationWarning. */
function validateDeprecationWarning (v: Crd, path: string): FieldError[] {
  const w = v.deprecationWarning
  if (w === undefined || w === null) return []
  if (v.deprecated !== true) return [{ type: 'Invalid', field: path, value: w, detail: 'can only be set for deprecated versions' }]
  const problems: string[] = []
  if (w.length > MAX_DEPRECATION_WARNING) problems.push(`must be <= ${MAX_DEPRECATION_WARNING} characters long`)
  if (w.length === 0) problems.push('must not be an empty string')
  const control = [...w].findIndex((ch: string) => /\p{Cc}/u.test(ch))
  if (control >= 0) problems.push(`must only contain printable UTF-8 characters; non-printable character found at index ${control}`)
  return problems.length === 0 ? [] : [{ type: 'Invalid', field: path, value: w, detail: problems.join('\n') }]
}

/**
 * Where the reference reports the problems of each version's schema: its internal form keeps one
 * schema for every version when they are all the same, so those are reported once, at
 * `spec.validation.openAPIV3Schema`; else each at `spec.versions[i].schema.openAPIV3Schema`.
 */
export function schemaLocations (crd: Crd): Array<{ index: number, schema: unknown, path: string }> {
  const versions: Crd[] = Array.isArray(crd.spec?.versions) ? crd.spec.versions : []
  const schemas = versions.map(v => v?.schema?.openAPIV3Schema)
  const shared = versions.length > 0 && schemas.every(x => x !== undefined && x !== null && isDeepStrictEqual(x, schemas[0]))
  if (shared) return [{ index: 0, schema: schemas[0], path: 'spec.validation.openAPIV3Schema' }]
  return schemas.map((schema, index) => ({ index, schema, path: `spec.versions[${index}].schema.openAPIV3Schema` }))
}

function validateVersion (v: Crd, path: string, schemaPath: string | undefined): FieldError[] {
  const errors = validateDeprecationWarning(v, `${path}.deprecationWarning`)
  const statusEnabled = v.subresources?.status !== undefined && v.subresources?.status !== null
  const openAPIV3Schema = v.schema?.openAPIV3Schema
  if (openAPIV3Schema === undefined || openAPIV3Schema === null) {
    errors.push({ type: 'Required', field: `${path}.schema.openAPIV3Schema`, detail: 'schemas are required' })
  } else if (schemaPath !== undefined) errors.push(...validateCrdSchema(openAPIV3Schema, schemaPath, statusEnabled))
  if (v.subresources?.scale !== undefined && v.subresources?.scale !== null) errors.push(...validateScale(v.subresources.scale, `${path}.subresources.scale`))
  ;(v.additionalPrinterColumns ?? []).forEach((c: Crd, i: number) => errors.push(...validateColumn(c ?? {}, `${path}.additionalPrinterColumns[${i}]`)))
  if (Array.isArray(v.selectableFields) && v.selectableFields.length > 0) errors.push(...validateSelectableFields(v.selectableFields, openAPIV3Schema ?? undefined, `${path}.selectableFields`))
  return errors
}

function validateConversionReviewVersions (versions: string[] | undefined, path: string): FieldError[] {
  if (versions === undefined || versions.length === 0) return [{ type: 'Required', field: path, detail: '' }]
  const errors: FieldError[] = []
  const seen = new Set<string>()
  versions.forEach((v, i) => {
    if (seen.has(v)) { errors.push({ type: 'Invalid', field: `${path}[${i}]`, value: v, detail: 'duplicate version' }); return }
    seen.add(v)
    for (const p of dns1035LabelProblems(v)) errors.push({ type: 'Invalid', field: `${path}[${i}]`, value: v, detail: p })
  })
  if (!versions.some(v => CONVERSION_REVIEW_VERSIONS.includes(v))) {
    errors.push({ type: 'Invalid', field: path, value: versions, detail: `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(', ')}` })
  }
  return errors
}

function validateConversion (c: Crd | undefined): FieldError[] {
  if (c === undefined || c === null) return []
  const errors: FieldError[] = []
  if (!CONVERSION_STRATEGIES.includes(c.strategy)) errors.push({ type: 'NotSupported', field: 'spec.conversion.strategy', value: c.strategy, supported: CONVERSION_STRATEGIES })
  const cc = c.webhook?.clientConfig
  const reviewVersions = c.webhook?.conversionReviewVersions
  if (c.strategy === 'Webhook') {
    if (cc === undefined || cc === null) errors.push({ type: 'Required', field: 'spec.conversion.webhookClientConfig', detail: 'required when strategy is set to Webhook' })
    else errors.push(...validateClientConfig(cc, 'spec.conversion.webhookClientConfig'))
    errors.push(...validateConversionReviewVersions(reviewVersions, 'spec.conversion.conversionReviewVersions'))
  } else {
    if (cc !== undefined && cc !== null) errors.push({ type: 'Forbidden', field: 'spec.conversion.webhookClientConfig', detail: 'should not be set when strategy is not set to Webhook' })
    if (Array.isArray(reviewVersions) && reviewVersions.length > 0) errors.push({ type: 'Forbidden', field: 'spec.conversion.conversionReviewVersions', detail: 'should not be set when strategy is not set to Webhook' })
  }
  return errors
}

/** ValidateCustomResourceDefinition: the name, the spec and the accepted names. */
export function validateCrd (crd: Crd): FieldError[] {
  const errors: FieldError[] = []
  const spec = crd.spec ?? {}
  const names = spec.names ?? {}
  const name = crd.metadata?.name
  if (typeof name === 'string' && name !== '' && name !== `${names.plural}.${spec.group}`) {
    errors.push({ type: 'Invalid', field: 'metadata.name', value: name, detail: 'must be spec.names.plural+"."+spec.group' })
  }
  if (!spec.group) errors.push({ type: 'Required', field: 'spec.group', detail: '' })
  else {
    const problems = dnsSubdomainProblems(spec.group)
    if (problems.length > 0) errors.push({ type: 'Invalid', field: 'spec.group', value: spec.group, detail: joinProblems(problems) })
    else if (spec.group.split('.').length < 2) errors.push({ type: 'Invalid', field: 'spec.group', value: spec.group, detail: 'should be a domain with at least one dot' })
  }
  if (!spec.scope) errors.push({ type: 'Required', field: 'spec.scope', detail: '' })
  else if (!SCOPES.includes(spec.scope)) errors.push({ type: 'NotSupported', field: 'spec.scope', value: spec.scope, supported: SCOPES })
  const versions: Crd[] = Array.isArray(spec.versions) ? spec.versions : []
  const schemaPaths = new Map(schemaLocations(crd).map(l => [l.index, l.path]))
  const seen = new Set<string>()
  let unique = true
  let storage = 0
  versions.forEach((v, i) => {
    if (v?.storage === true) storage++
    if (seen.has(v?.name)) unique = false
    seen.add(v?.name)
    const problems = dns1035LabelProblems(String(v?.name ?? ''))
    if (problems.length > 0) errors.push({ type: 'Invalid', field: `spec.versions[${i}].name`, value: v?.name, detail: joinProblems(problems) })
    errors.push(...validateVersion(v ?? {}, `spec.versions[${i}]`, schemaPaths.get(i)))
  })
  if (!unique) errors.push({ type: 'Invalid', field: 'spec.versions', value: versions, detail: 'must contain unique version names' })
  if (storage !== 1) errors.push({ type: 'Invalid', field: 'spec.versions', value: versions, detail: 'must have exactly one version marked as storage version' })
  for (const [field, value] of [['plural', names.plural], ['singular', names.singular], ['kind', names.kind], ['listKind', names.listKind]] as const) {
    if (!value) errors.push({ type: 'Required', field: `spec.names.${field}`, detail: '' })
  }
  errors.push(...validateNames(names, 'spec.names'))
  errors.push(...validateConversion(spec.conversion))
  if (spec.preserveUnknownFields === true) {
    errors.push({ type: 'Invalid', field: 'spec.preserveUnknownFields', value: true, detail: 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead' })
  }
  errors.push(...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'))
  return errors
}

/** ValidateCustomResourceDefinitionStoredVersions. */
export function validateStoredVersions (crd: Crd): FieldError[] {
  const stored: string[] = crd.status?.storedVersions ?? []
  const path = 'status.storedVersions'
  if (stored.length === 0) return [{ type: 'Invalid', field: path, value: stored, detail: 'must have at least one stored version' }]
  const errors: FieldError[] = []
  const left = new Map(stored.map((v, i) => [v, i]))
  for (const v of (crd.spec?.versions ?? []) as Crd[]) {
    if (v?.storage === true && !left.has(v.name)) errors.push({ type: 'Invalid', field: path, value: v.name, detail: `must have the storage version ${String(v.name)}` })
    left.delete(v?.name)
  }
  for (const [v, i] of left) errors.push({ type: 'Invalid', field: `${path}[${i}]`, value: v, detail: 'must appear in spec.versions' })
  return errors
}

function validateCrdUpdate (crd: Crd, old: Crd): FieldError[] {
  const errors: FieldError[] = []
  const immutable = (field: string, now: unknown, before: unknown) => {
    if (!isDeepStrictEqual(now, before)) errors.push({ type: 'Invalid', field, value: now, detail: 'field is immutable' })
  }
  // Scope and kind decide how instances are stored, so they stay once the kind is served.
  if (isConditionTrue(old, CRD_CONDITIONS.established)) {
    immutable('spec.scope', crd.spec?.scope, old.spec?.scope)
    immutable('spec.names.kind', crd.spec?.names?.kind, old.spec?.names?.kind)
  }
  // These make up the object's name, which never changes.
  immutable('spec.group', crd.spec?.group, old.spec?.group)
  immutable('spec.names.plural', crd.spec?.names?.plural, old.spec?.names?.plural)
  errors.push(...validateStoredVersions(crd))
  return errors
}

const EXAMPLE = {
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
    scope: 'Namespaced',
    versions: [{
      name: 'v1',
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } }
    }]
  },
  status: {
    acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
    storedVersions: ['v1'],
    conditions: [{ type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }]
  }
}

export default defineResource({
  group: GROUPS.apiextensions,
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  scope: 'Cluster',
  schema,
  deleteReturns: 'Object',
  subresources: { status: statusSubresource() },
  strategy: {
    prepareForCreate (crd: Crd, _ctx: RequestContext) {
      applyDefaults(crd)
      recordStorageVersion(crd)
      // The instances go before the definition: the cleanup controller removes this once they have.
      const finalizers: string[] = crd.metadata.finalizers ?? []
      if (!finalizers.includes(FINALIZERS.customResourceCleanup)) crd.metadata.finalizers = [...finalizers, FINALIZERS.customResourceCleanup]
    },
    prepareForUpdate (crd: Crd) {
      applyDefaults(crd)
      recordStorageVersion(crd)
    },
    prepareForDelete (crd: Crd) {
      const conditions = (crd.status?.conditions ?? []).filter((c: Crd) => c?.type !== CRD_CONDITIONS.terminating)
      conditions.push({ type: CRD_CONDITIONS.terminating, status: 'True', lastTransitionTime: crd.metadata.deletionTimestamp, reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' })
      crd.status = { ...(crd.status ?? {}), conditions }
    },
    validate: (crd: Crd) => validateCrd(crd),
    validateUpdate: (crd: Crd, old: Crd) => validateCrdUpdate(crd, old)
  },
  example: EXAMPLE,
  // The name is `<plural>.<group>`: another name is the example's plural in another group.
  exampleNamed (name: string) {
    const dot = name.indexOf('.')
    const example = structuredClone(EXAMPLE)
    example.metadata.name = name
    example.spec.names.plural = name.slice(0, dot)
    example.spec.group = name.slice(dot + 1)
    return example
  }
})
