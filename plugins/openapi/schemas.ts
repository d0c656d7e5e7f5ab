// OpenAPI schemas from the kinds' TypeBox schemas: one converter for both document versions
// (v2 `#/definitions/`, v3 `#/components/schemas/`), shared types named once and referenced.
import { Type, type TSchema } from '@sinclair/typebox'
import type { Resource } from '../../resources/define.js'
import { ListMeta, ManagedFieldsEntry, ObjectMeta, OwnerReference, Int32, Int64 } from '../../resources/meta.js'
import { OPENAPI_NAMES } from '../../resources/naming.js'

export type Flavor = 'v2' | 'v3'
export type JsonSchema = Record<string, unknown>

const meta = (name: string): string => `${OPENAPI_NAMES.metaPackage}.${name}`

/** `io.k8s.api.<package>.<version>.<Kind>`; the package is the group's first label, `core` for ''. */
export const definitionName = (r: Pick<Resource, 'group' | 'version'>, kind: string): string =>
  `${OPENAPI_NAMES.apiPackagePrefix}.${r.group === '' ? 'core' : r.group.split('.')[0]!}.${r.version}.${kind}`

const StatusCause = Type.Object({
  reason: Type.Optional(Type.String({ description: 'A machine-readable description of the cause of the error.' })),
  message: Type.Optional(Type.String({ description: 'A human-readable description of the cause of the error.' })),
  field: Type.Optional(Type.String({ description: 'The field of the resource that has caused this error, as named by its JSON serialization.' }))
}, { description: 'StatusCause provides more information about an api.Status failure.' })

const StatusDetails = Type.Object({
  name: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  causes: Type.Optional(Type.Array(StatusCause, { 'x-kubernetes-list-type': 'atomic' })),
  retryAfterSeconds: Type.Optional(Int32())
}, { description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.' })

const Status = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ListMeta),
  status: Type.Optional(Type.String({ description: 'Status of the operation. One of: "Success" or "Failure".' })),
  message: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  details: Type.Optional(StatusDetails),
  code: Type.Optional(Int32())
}, { description: 'Status is a return value for calls that don\'t return other objects.' })

const Preconditions = Type.Object({
  resourceVersion: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String())
}, { description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.' })

const DeleteOptions = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  dryRun: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
  gracePeriodSeconds: Type.Optional(Int64()),
  orphanDependents: Type.Optional(Type.Boolean()),
  preconditions: Type.Optional(Preconditions),
  propagationPolicy: Type.Optional(Type.String())
}, { description: 'DeleteOptions may be provided when deleting an API object.' })

const Patch = Type.Object({}, { description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.' })

const WatchEvent = Type.Object({
  type: Type.String(),
  object: Type.Unknown({ description: 'The object: for ADDED and MODIFIED its new state, for DELETED its last state, for BOOKMARK only its resourceVersion, for ERROR a Status.' })
}, { description: 'Event represents a single event to a watched resource.' })

/** Shared types by identity, so every kind refers to one definition. */
const SHARED = new Map<TSchema, string>([
  [ObjectMeta, meta('ObjectMeta')],
  [OwnerReference, meta('OwnerReference')],
  [ManagedFieldsEntry, meta('ManagedFieldsEntry')],
  [ListMeta, meta('ListMeta')],
  [Status, meta('Status')],
  [StatusDetails, meta('StatusDetails')],
  [StatusCause, meta('StatusCause')],
  [Preconditions, meta('Preconditions')],
  [DeleteOptions, meta('DeleteOptions')],
  [Patch, meta('Patch')],
  [WatchEvent, meta('WatchEvent')]
])

/** Optional() clones a schema shallowly, so shared object types are recognised by their properties. */
const SHARED_BY_PROPERTIES = new Map<unknown, string>([...SHARED].map(([s, name]) => [(s as JsonSchema).properties, name]))
const sharedName = (s: TSchema): string | undefined =>
  SHARED.get(s) ?? ((s as JsonSchema).type === 'object' ? SHARED_BY_PROPERTIES.get((s as JsonSchema).properties) : undefined)

export const SHARED_NAMES = {
  status: meta('Status'), deleteOptions: meta('DeleteOptions'), patch: meta('Patch'), watchEvent: meta('WatchEvent')
} as const

const COPIED = ['description', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'default',
  // What only schemas users write carry (a CRD version's): published as written.
  'enum', 'pattern', 'multipleOf', 'uniqueItems', 'exclusiveMinimum', 'exclusiveMaximum', 'minProperties', 'maxProperties', 'example', 'title']
/** Value constraints of a typed node (a CRD schema's allOf/anyOf/oneOf/not): kept in v3, which has them. */
const COMBINATORS = ['allOf', 'anyOf', 'oneOf', 'not']

/** Collects definitions while converting; `ref` names a definition in this flavor. */
export class SchemaBuilder {
  readonly definitions: Record<string, JsonSchema> = {}
  constructor (readonly flavor: Flavor) {}

  ref (name: string): string { return `${this.flavor === 'v2' ? '#/definitions/' : '#/components/schemas/'}${name}` }

  /** A reference to `name`, carrying a description the way each flavor allows. */
  refTo (name: string, description?: unknown): JsonSchema {
    if (this.flavor === 'v2' || description === undefined) return { $ref: this.ref(name), ...(this.flavor === 'v2' && description !== undefined ? { description } : {}) }
    return { description, allOf: [{ $ref: this.ref(name) }] }
  }

  /** Adds a named definition (idempotent). */
  define (name: string, schema: TSchema, extra: JsonSchema = {}): void {
    if (this.definitions[name] !== undefined) return
    this.definitions[name] = {}
    this.definitions[name] = { ...this.convert(schema, true), ...extra }
  }

  addShared (): void {
    for (const [schema, name] of SHARED) this.define(name, schema)
  }

  convert (s: TSchema, top = false): JsonSchema {
    const shared = top ? undefined : sharedName(s)
    if (shared !== undefined) {
      this.define(shared, s)
      return this.refTo(shared, (s as JsonSchema).description)
    }
    const src = s as JsonSchema
    const out: JsonSchema = {}
    for (const k of COPIED) if (src[k] !== undefined) out[k] = src[k]
    for (const k of Object.keys(src)) if (k.startsWith('x-kubernetes-')) out[k] = src[k]
    // A typed node's combinators only constrain values (a structural schema's); a TypeBox union has no type.
    if (src.type !== undefined) {
      if (this.flavor === 'v3') for (const k of COMBINATORS) if (src[k] !== undefined) out[k] = src[k]
      if (this.flavor === 'v3' && src.nullable === true) out.nullable = true
    } else if (Array.isArray(src.anyOf)) return { ...this.union(src.anyOf as TSchema[]), ...out }
    if (src['x-kubernetes-int-or-string'] === true) return out
    if (src.const !== undefined) return { type: typeof src.const, ...out }
    switch (src.type) {
      case 'object': {
        out.type = 'object'
        const props = src.properties as Record<string, TSchema> | undefined
        if (props !== undefined && Object.keys(props).length > 0) {
          out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, this.convert(v)]))
        }
        if (Array.isArray(src.required) && src.required.length > 0) out.required = src.required
        const pattern = src.patternProperties as Record<string, TSchema> | undefined
        const values = pattern !== undefined ? Object.values(pattern)[0] : (typeof src.additionalProperties === 'object' ? src.additionalProperties as TSchema : undefined)
        if (values !== undefined) out.additionalProperties = this.convert(values)
        return out
      }
      case 'array':
        return { type: 'array', items: this.convert(src.items as TSchema), ...out }
      case 'string': case 'integer': case 'number': case 'boolean':
        return { type: src.type, ...out }
      case 'null':
        return out
      default:
        // Anything at all: v3 says so explicitly, v2 leaves the schema open.
        return this.flavor === 'v3' ? { ...out, 'x-kubernetes-preserve-unknown-fields': true } : out
    }
  }

  private union (variants: TSchema[]): JsonSchema {
    const real = variants.filter(v => (v as JsonSchema).type !== 'null')
    if (real.length === 1) return this.convert(real[0]!)
    if (real.every(v => (v as JsonSchema).const !== undefined)) {
      return { type: 'string', enum: real.map(v => (v as JsonSchema).const) }
    }
    const types = new Set(real.map(v => (v as JsonSchema).type))
    if (types.size === 2 && types.has('integer') && types.has('string')) {
      return { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true }
    }
    return this.flavor === 'v3' ? { 'x-kubernetes-preserve-unknown-fields': true } : {}
  }
}

/** The GVK marker clients look schemas and operations up by. */
export const gvk = (r: Pick<Resource, 'group' | 'version'>, kind: string): Array<Record<string, string>> =>
  [{ group: r.group, kind, version: r.version }]

/** Adds a kind and its list to `b`; returns their definition names. */
export function defineKind (b: SchemaBuilder, r: Resource): { object: string, list: string } {
  const object = definitionName(r, r.kind)
  const list = definitionName(r, r.listKind)
  b.define(object, r.schema, { 'x-kubernetes-group-version-kind': gvk(r, r.kind) })
  b.define(list, Type.Object({
    apiVersion: Type.Optional(Type.String({ description: 'APIVersion defines the versioned schema of this representation of an object.' })),
    kind: Type.Optional(Type.String({ description: 'Kind is a string value representing the REST resource this object represents.' })),
    metadata: Type.Optional(ListMeta),
    items: Type.Array(Type.Unknown())
  }, { description: `${r.listKind} is a list of ${r.kind} objects.` }), { 'x-kubernetes-group-version-kind': gvk(r, r.listKind) })
  // The items refer to the kind's definition.
  const listDef = b.definitions[list]!
  ;(listDef.properties as JsonSchema).items = { type: 'array', description: `Items is the list of ${r.kind} objects.`, items: b.refTo(object) }
  return { object, list }
}
