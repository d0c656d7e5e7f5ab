// A CustomResourceDefinition as a kind the generic REST machinery serves: the storage version's
// names, schema, table columns and selectable fields, and a strategy that defaults, prunes and
// validates bodies against the version the request names, as the reference's customresource
// strategy does. Nothing here knows any particular CRD.
import type { TObject } from '@sinclair/typebox'
import { defineResource, STATUS_ONLY_METADATA, statusSubresource, type AnyObject, type Column, type RequestContext, type Resource, type VersionLifecycle } from '../../resources/define.js'
import { ObjectMeta } from '../../resources/meta.js'
import { byVersionPriority } from '../../resources/api-versions.js'
import { ApiError, type FieldError } from '../../resources/status.js'
import { checkAgainstSchema } from '../../machinery/schema-check.js'
import { applyDefaults, embeddedObjectMetas, prune, validateCustomObject, type JSONSchemaProps } from '../../machinery/openapi-schema/index.js'
import { validateAnnotations, validateLabels } from '../../resources/validation.js'
import { findAll, findFirst, parseJsonPath } from '../../machinery/json-path.js'
import { printerCell } from './printer-columns.js'
import { scaleSubresource } from '../../resources/scale.js'

type Crd = AnyObject

/** Rules beyond the OpenAPI checks (x-kubernetes-validations), compiled once per version schema. */
export interface RuleValidator {
  validate (obj: AnyObject, old: AnyObject | undefined): FieldError[]
}

/** Converts objects between a definition's versions through its webhook. */
export type VersionConverter = (objects: AnyObject[], apiVersion: string) => Promise<AnyObject[]>

export interface CustomKindOptions {
  /** The CEL rules of a version's schema; undefined when it has none. */
  rules?: (schema: JSONSchemaProps) => RuleValidator | undefined
  /** The converter of a definition whose conversion strategy is Webhook. */
  webhookConverter?: (crd: Crd) => VersionConverter
  /** Whether the definition is being deleted now: creates are refused then, as the reference does. */
  terminating: () => boolean
}

/** What serving a definition depends on: when it changes, the kind is served anew. */
export const servingFingerprint = (crd: Crd): string => JSON.stringify([crd.spec, crd.status?.acceptedNames])

/** The served versions, highest priority first (v2 before v1 before v1beta1), as discovery orders them. */
export const servedVersions = (crd: Crd): AnyObject[] =>
  (crd.spec.versions as AnyObject[]).filter(v => v.served === true).sort((a, b) => byVersionPriority(a.name, b.name))

const storageVersionOf = (crd: Crd): AnyObject => (crd.spec.versions as AnyObject[]).find(v => v.storage === true) ?? crd.spec.versions[0]

/** The published schema: the version's own, with metadata as every kind's ObjectMeta. */
function publishedSchema (version: AnyObject): TObject {
  const own: JSONSchemaProps = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }
  const { metadata: _m, apiVersion: _a, kind: _k, ...properties } = (own.properties ?? {}) as Record<string, JSONSchemaProps>
  return {
    ...own,
    type: 'object',
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: ObjectMeta,
      ...properties
    }
  } as unknown as TObject
}

/** A printer column's JSONPath, evaluated per object; a path that does not parse shows nothing. */
function columnOf (c: AnyObject): Column {
  let path: ReturnType<typeof parseJsonPath> | undefined
  try { path = parseJsonPath(c.jsonPath) } catch { path = undefined }
  // A date cell is rendered here (an age, or <invalid>): to the table it is text, not a timestamp
  // that it would turn into an age a second time.
  const type = ['integer', 'number', 'boolean'].includes(c.type) ? c.type : 'string'
  return {
    name: c.name,
    type,
    format: c.format,
    priority: c.priority === 1 ? 1 : 0,
    // The reference's table convertor describes a column without a description by its path.
    description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
    value: (obj) => path === undefined ? null : printerCell(c.type, findAll(path, obj)),
    nullWhenMissing: true
  }
}

/** The default table of a version without printer columns: Name and Age, as the reference's. */
const AGE_COLUMN = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' }

function fieldSelectorsOf (version: AnyObject): Record<string, (obj: AnyObject) => string | undefined> | undefined {
  const fields = (version.selectableFields ?? []) as AnyObject[]
  if (fields.length === 0) return undefined
  return Object.fromEntries(fields.map(f => {
    const path = parseJsonPath(f.jsonPath)
    const v = (obj: AnyObject): string | undefined => {
      const found = findFirst(path, obj)
      return found === undefined || found === null ? '' : String(found)
    }
    return [String(f.jsonPath).replace(/^\./, ''), v]
  }))
}

/** Whether a schema defaults anything anywhere (only then do reads fill defaults). */
function hasDefaults (schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false
  if (!Array.isArray(schema) && Object.hasOwn(schema, 'default')) return true
  return Object.values(schema).some(hasDefaults)
}

/** Metadata is typed as every kind's; the rest is the version schema's (defaults, then pruning). */
function bodyChecker (schemaOf: (apiVersion: unknown) => JSONSchemaProps | undefined) {
  return (obj: AnyObject, dropUnknown: boolean): { unknown: string[], errors: FieldError[] } => {
    const unknown: string[] = []
    const errors: FieldError[] = []
    if (obj.metadata !== undefined && obj.metadata !== null) {
      const meta = checkAgainstSchema(ObjectMeta, obj.metadata, dropUnknown)
      unknown.push(...meta.unknown.map(p => `metadata.${p}`))
      errors.push(...meta.errors.map(e => ({ ...e, field: e.field === '' ? 'metadata' : `metadata.${e.field}` })))
    }
    const schema = schemaOf(obj.apiVersion)
    if (schema !== undefined) {
      applyDefaults(obj, schema)
      unknown.push(...prune(obj, schema, true))
    }
    return { unknown, errors }
  }
}

/** The kind serving `crd`, its storage version the stored form and its other served versions beside it. */
export function customKind (crd: Crd, opts: CustomKindOptions): Resource {
  const names = crd.status.acceptedNames
  const group: string = crd.spec.group
  const storage = storageVersionOf(crd)
  const versions = new Map<string, AnyObject>((crd.spec.versions as AnyObject[]).map(v => [v.name, v]))
  const schemas = new Map<string, JSONSchemaProps | undefined>([...versions].map(([name, v]) => [name, v.schema?.openAPIV3Schema]))
  const rules = new Map<string, RuleValidator | undefined>()
  const rulesOf = (version: string): RuleValidator | undefined => {
    if (!rules.has(version)) {
      const schema = schemas.get(version)
      rules.set(version, schema === undefined ? undefined : opts.rules?.(schema))
    }
    return rules.get(version)
  }
  const webhook = crd.spec.conversion?.strategy === 'Webhook' ? opts.webhookConverter?.(crd) : undefined
  // Bodies are checked in the version the request named: its schema validates them. Through a
  // webhook they are converted first, and checked in the stored version.
  const versionOf = (ctx: RequestContext): string => {
    if (webhook !== undefined) return storage.name
    const requested = ctx.requestVersion?.split('/').pop()
    return requested !== undefined && versions.has(requested) ? requested : storage.name
  }
  const schemaOfApiVersion = (apiVersion: unknown): JSONSchemaProps | undefined =>
    schemas.get(typeof apiVersion === 'string' && versions.has(apiVersion.split('/').pop()!) ? apiVersion.split('/').pop()! : storage.name)
  const validate = (obj: AnyObject, ctx: RequestContext): FieldError[] => {
    const schema = schemas.get(versionOf(ctx))
    if (schema === undefined) return []
    // Embedded resources' metadata is an ObjectMeta: its labels and annotations are held to the
    // same rules as every object's (their names are their own kind's business).
    const embedded = embeddedObjectMetas(schema, obj).flatMap(({ path, metadata }) => [
      ...validateLabels(metadata.labels as Record<string, string> | undefined ?? undefined, `${path}.labels`),
      ...validateAnnotations(metadata.annotations as Record<string, string> | undefined ?? undefined, `${path}.annotations`)
    ])
    return [...validateCustomObject(schema, obj), ...embedded]
  }

  const olderVersions: VersionLifecycle[] = servedVersions(crd).filter(v => v.name !== storage.name).map(v => ({
    version: v.name,
    introduced: '',
    schema: publishedSchema(v),
    columns: ((v.additionalPrinterColumns as AnyObject[] | undefined) ?? [AGE_COLUMN]).map(columnOf),
    ...(v.deprecated === true ? { deprecated: '', warning: v.deprecationWarning ?? `${group}/${v.name} ${names.kind} is deprecated` } : {})
  }))
  const printerColumns = (storage.additionalPrinterColumns as AnyObject[] | undefined) ?? [AGE_COLUMN]
  const subresources: Resource['subresources'] = {}
  if (storage.subresources?.status !== undefined) subresources.status = statusSubresource(STATUS_ONLY_METADATA)
  if (storage.subresources?.scale !== undefined) subresources.scale = scaleSubresource(storage.subresources.scale)

  return defineResource({
    group,
    version: storage.name,
    kind: names.kind,
    plural: names.plural,
    singular: names.singular ?? String(names.kind).toLowerCase(),
    ...(names.shortNames !== undefined ? { shortNames: names.shortNames } : {}),
    ...(names.categories !== undefined ? { categories: names.categories } : {}),
    scope: crd.spec.scope === 'Namespaced' ? 'Namespaced' : 'Cluster',
    schema: publishedSchema(storage),
    generation: true,
    ...(storage.served === true ? {} : { versionServed: false }),
    subresources,
    olderVersions,
    columns: printerColumns.map(columnOf),
    completeColumns: true,
    fieldSelectors: fieldSelectorsOf(storage),
    strategicMerge: false,
    checkBody: bodyChecker(schemaOfApiVersion),
    ...(hasDefaults(schemas.get(storage.name)) ? { defaultOnRead: (obj: AnyObject) => { applyDefaults(obj, schemas.get(storage.name)!) } } : {}),
    ...(webhook === undefined ? {} : { convertVersions: webhook }),
    strategy: {
      prepareForCreate () {
        if (opts.terminating()) throw new ApiError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group, kind: names.plural })
      },
      validate,
      validateCreate: (obj, ctx) => rulesOf(versionOf(ctx))?.validate(obj, undefined) ?? [],
      validateUpdate: (obj, old, ctx) => rulesOf(versionOf(ctx))?.validate(obj, old) ?? []
    }
  })
}
