// Builds the protobuf message types of the kinds from their schemas, as the reference generates
// its .proto from its Go types: the message names and field numbers are the schemas' `protobuf`
// options (resources/protobuf.ts); the field types follow from the schemas' types and formats.
import protobuf from 'protobufjs'
import type { TSchema } from '@sinclair/typebox'
import type { Resource } from '../../resources/define.js'
import { ListMeta } from '../../resources/meta.js'
import { GROUP_SUFFIX, UPSTREAM_GROUP_SUFFIX } from '../../resources/naming.js'
import { protobufMessageOf, type ProtobufField, type ProtobufMessage } from '../../resources/protobuf.js'

/** The wrapper messages of upstream types with a JSON form of their own (meta.proto, runtime.proto). */
const SPECIAL_TYPES = {
  time: 'meta.v1.Time',
  microTime: 'meta.v1.MicroTime',
  quantity: 'runtime.Quantity',
  intOrString: 'runtime.IntOrString'
} as const

/**
 * A group without its `svc.io` or `k8s.io` suffix ('' for the core group, the name itself for the
 * built-in groups that never had a suffix: apps, batch, policy, autoscaling); undefined for other
 * groups (custom resources' groups have a domain of their own, and no protobuf form).
 */
export function groupPrefix (group: string): string | undefined {
  if (!group.includes('.')) return group
  for (const suffix of [GROUP_SUFFIX, UPSTREAM_GROUP_SUFFIX]) {
    if (group.endsWith(`.${suffix}`)) return group.slice(0, -suffix.length - 1)
  }
  return undefined
}

/**
 * The proto package of a group: its first label, `core` for the core group (as upstream's Go
 * packages: rbac.authorization.k8s.io is package rbac). A group and its upstream twin share it.
 */
export function protoPackage (group: string): string | undefined {
  const prefix = groupPrefix(group)
  if (prefix === undefined) return undefined
  return prefix === '' ? 'core' : prefix.split('.')[0]
}

/** One served form of a kind: its group version, kind and schema. */
export interface KindForm { group: string, version: string, kind: string, schema: TSchema, listed: boolean }

/** Every served form of the kinds: each kind's own, and those it is served as in other groups. */
export function kindForms (resources: readonly Resource[]): KindForm[] {
  return resources.flatMap(r => {
    const listed = r.verbs.includes('list')
    return [
      { group: r.group, version: r.version, kind: r.kind, schema: r.schema, listed },
      ...(r.servedAs ?? []).map(s => ({ group: s.group, version: s.version, kind: s.kind, schema: s.schema, listed }))
    ]
  })
}

/** A schema that cannot be described as a message; thrown at start, so a wrong annotation never serves. */
export class SchemaMessageError extends Error {}

type Json = Record<string, any>

/** A property schema without the wrappers that do not reach the wire: a union with null. */
function unwrapNullable (s: Json): Json {
  if (!Array.isArray(s.anyOf)) return s
  const real = (s.anyOf as Json[]).filter(v => v.type !== 'null')
  // MicroTime marks the union itself (resources/micro-time.ts).
  return real.length === 1 && s.microTime !== true ? real[0]! : s
}

/** Whether `type` is a protobuf scalar type. */
const isScalar = (type: string): boolean => type in protobuf.types.basic || type === 'string' || type === 'bytes'

/** A numeric scalar: repeated, written unpacked (upstream's messages are proto2). */
const isNumeric = (type: string): boolean => type !== 'string' && type !== 'bytes' && isScalar(type)

export class SchemaMessageBuilder {
  /** The message built for each object schema, per package (a shared schema may serve several). */
  private readonly built = new Map<string, Map<TSchema, string>>()

  constructor (private readonly root: protobuf.Root) {}

  /** Adds `<Kind>` (and `<Kind>List` when the kind is listed) for every form whose schema describes a message. */
  addKinds (forms: readonly KindForm[]): void {
    const listMeta = this.messageOf(ListMeta as Json, 'meta.v1', 'ListMeta')
    for (const form of forms) {
      const description = protobufMessageOf(form.schema)
      const pkg = protoPackage(form.group)
      if (description === undefined || pkg === undefined) continue
      const ns = `${pkg}.${form.version}`
      const name = this.messageOf(form.schema as Json, ns, form.kind, true)
      if (!form.listed) continue
      const list = new protobuf.Type(`${form.kind}List`)
      list.add(new protobuf.Field('metadata', 1, `.${listMeta}`))
      list.add(new protobuf.Field('items', 2, `.${name}`, 'repeated'))
      this.namespace(ns).add(list)
    }
  }

  private namespace (path: string): protobuf.Namespace {
    return this.root.define(path)
  }

  /** Whether the root has `fullName` at exactly that path (protobufjs's lookup also searches nested namespaces). */
  private exists (fullName: string): boolean {
    let at: protobuf.ReflectionObject | undefined = this.root
    for (const part of fullName.split('.')) at = at instanceof protobuf.Namespace ? at.nested?.[part] : undefined
    return at !== undefined
  }

  /**
   * The full name of the message of object schema `s` in package `ns`, built if new. A message
   * the root already has by that name (from the hand-written files) is used as it is.
   */
  private messageOf (s: Json, ns: string, path: string, top = false): string {
    const description = protobufMessageOf(s as TSchema)
    if (description === undefined) throw new SchemaMessageError(`${path}: the object schema names no protobuf message`)
    const fullName = description.message.includes('.') ? description.message : `${ns}.${description.message}`
    let perNs = this.built.get(ns)
    if (perNs === undefined) this.built.set(ns, perNs = new Map())
    const known = perNs.get(s as TSchema)
    if (known !== undefined) return known
    perNs.set(s as TSchema, fullName)
    if (this.exists(fullName)) return fullName
    const properties = (s.properties ?? {}) as Record<string, Json>
    const claimed = new Set<string>()
    const type = this.describe(description, properties, ns, path, claimed)
    for (const key of Object.keys(properties)) {
      if (claimed.has(key) || (top && (key === 'apiVersion' || key === 'kind'))) continue
      throw new SchemaMessageError(`${path}.${key}: the property has no field in the protobuf message ${fullName}`)
    }
    const at = fullName.lastIndexOf('.')
    this.namespace(fullName.slice(0, at)).add(type)
    return fullName
  }

  /** The message of `description` over `properties` (inlined structs take theirs from the same object). */
  private describe (description: ProtobufMessage, properties: Record<string, Json>, ns: string, path: string, claimed: Set<string>): protobuf.Type {
    const name = description.message.slice(description.message.lastIndexOf('.') + 1)
    const type = new protobuf.Type(name)
    for (const [key, spec] of Object.entries(description.fields)) {
      const field = typeof spec === 'number' ? { number: spec } : spec
      const property = properties[key]
      if (property === undefined) throw new SchemaMessageError(`${path}: field ${key} of ${name} has no property in the schema`)
      claimed.add(key)
      if (field.jsonOnly !== true) this.addField(type, key, field, property, ns, `${path}.${key}`)
    }
    for (const [key, extra] of Object.entries(description.wireOnly ?? {})) {
      if (properties[key] !== undefined) throw new SchemaMessageError(`${path}: wire-only field ${key} of ${name} is a property of the schema`)
      this.addField(type, key, typeof extra.field === 'number' ? { number: extra.field } : extra.field, extra.schema as Json, ns, `${path}.${key}`)
    }
    for (const [key, inline] of Object.entries(description.inline ?? {})) {
      const fullName = inline.message.includes('.') ? inline.message : `${ns}.${inline.message}`
      if (!this.exists(fullName)) {
        const inner = this.describe(inline, properties, ns, path, claimed)
        this.namespace(fullName.slice(0, fullName.lastIndexOf('.'))).add(inner)
      } else {
        // Already built by another kind: its fields (and those of structs inlined in it) are this object's too.
        const claim = (m: ProtobufMessage): void => {
          for (const k of Object.keys(m.fields)) claimed.add(k)
          for (const nested of Object.values(m.inline ?? {})) claim(nested)
        }
        claim(inline)
      }
      type.add(new protobuf.Field(key, inline.number, `.${fullName}`, undefined, undefined, { '(json_inline)': true }))
    }
    return type
  }

  private addField (type: protobuf.Type, name: string, field: ProtobufField, property: Json, ns: string, path: string): void {
    const s = unwrapNullable((field.schema ?? property) as Json)
    if (s.type === 'array') {
      const item = this.typeOf(unwrapNullable(s.items as Json), field, ns, `${path}[]`)
      type.add(new protobuf.Field(name, field.number, item, 'repeated', undefined, isNumeric(item) ? { packed: false } : undefined))
      return
    }
    const values = mapValues(s)
    if (values !== undefined && field.type === undefined) {
      const v = unwrapNullable(values)
      const valueType = v.type === 'array' ? this.listWrapper(v, field, ns, path) : this.typeOf(v, field, ns, `${path}{}`)
      type.add(new protobuf.MapField(name, field.number, 'string', valueType))
      return
    }
    const t = this.typeOf(s, field, ns, path)
    if (field.keepZero === true) {
      const f = new protobuf.Field(name, field.number, t, undefined, undefined, { proto3_optional: true })
      const oneof = new protobuf.OneOf(`_${name}`)
      type.add(f)
      type.add(oneof)
      oneof.add(f)
      return
    }
    type.add(new protobuf.Field(name, field.number, t))
  }

  /** The message wrapping a map's list values (`option (json_list)`: JSON renders it as the list). */
  private listWrapper (list: Json, field: ProtobufField, ns: string, path: string): string {
    if (field.listMessage === undefined) throw new SchemaMessageError(`${path}: a map of lists needs a listMessage`)
    const fullName = `${ns}.${field.listMessage}`
    if (!this.exists(fullName)) {
      const wrapper = new protobuf.Type(field.listMessage, { '(json_list)': true })
      const item = this.typeOf(unwrapNullable(list.items as Json), {}, ns, `${path}{}[]`)
      wrapper.add(new protobuf.Field('items', 1, item, 'repeated', undefined, isNumeric(item) ? { packed: false } : undefined))
      this.namespace(ns).add(wrapper)
    }
    return `.${fullName}`
  }

  /** The protobuf type of a single value: a scalar name, or a message's full name with a leading dot. */
  private typeOf (s: Json, field: Pick<ProtobufField, 'type'>, ns: string, path: string): string {
    if (field.type !== undefined) return isScalar(field.type) ? field.type : `.${field.type}`
    if (s.microTime === true) return `.${SPECIAL_TYPES.microTime}`
    if (s['x-kubernetes-int-or-string'] === true) return `.${SPECIAL_TYPES.intOrString}`
    if (Array.isArray(s.anyOf) && (s.anyOf as Json[]).every(v => typeof v.const === 'string')) return 'string'
    if (s.const !== undefined) return typeof s.const === 'string' ? 'string' : 'bool'
    switch (s.type) {
      case 'string':
        if (s.format === 'date-time') return `.${SPECIAL_TYPES.time}`
        if (s.format === 'quantity') return `.${SPECIAL_TYPES.quantity}`
        return s.format === 'byte' ? 'bytes' : 'string'
      case 'boolean': return 'bool'
      case 'number': return 'double'
      case 'integer':
        if (s.format === 'int32' || s.format === 'int64') return s.format
        throw new SchemaMessageError(`${path}: an integer without format needs its protobuf type`)
      case 'object':
        if (s.properties !== undefined) return `.${this.messageOf(s, ns, path)}`
    }
    throw new SchemaMessageError(`${path}: no protobuf type follows from the schema; name one`)
  }
}

/** The value schema of a map (Type.Record), if `s` is one. */
function mapValues (s: Json): Json | undefined {
  if (s.type !== 'object' || s.properties !== undefined) return undefined
  if (s.patternProperties !== undefined) return Object.values(s.patternProperties as Record<string, Json>)[0]
  return typeof s.additionalProperties === 'object' ? s.additionalProperties as Json : undefined
}
