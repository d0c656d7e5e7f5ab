import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import type { TSchema } from '@sinclair/typebox'
import { RESOURCES } from '../../resources/index.js'
import { protobufMessageOf } from '../../resources/protobuf.js'
import { loadProtoFiles, ProtobufCodec } from '../../plugins/protobuf/codec.js'
import { kindForms, protoPackage, SchemaMessageBuilder } from '../../plugins/protobuf/schema-messages.js'

/** The hand-copied .proto files of upstream's messages as they were before the schemas described them. */
const BEFORE_DIR = fileURLToPath(new URL('./fixtures/proto-before-27/', import.meta.url))
const BEFORE_FILES = ['runtime.proto', 'meta.proto', 'core.proto', 'pod.proto', 'rbac.proto', 'authorization.proto', 'authentication.proto', 'storage.proto', 'coordination.proto', 'certificates.proto', 'networking.proto', 'node.proto']

/** Where the built messages differ from the hand-copied ones on purpose. */
const INTENDED_CHANGES = [
  // The schema has it; upstream numbered it 6 until it dropped the field.
  'core.v1.PersistentVolumeClaim.status.resizeStatus: only in the built message'
]

async function loadBefore (): Promise<protobuf.Root> {
  const root = new protobuf.Root()
  root.resolvePath = (_origin, target) => BEFORE_DIR + target.replace(/^.*\//, '')
  await root.load(BEFORE_FILES, { keepCase: true })
  root.resolveAll()
  return root
}

/** What a field is on the wire and in JSON, message types by their own name (packages do not reach the wire). */
function describeField (f: protobuf.Field): string {
  const t = f.resolvedType === null ? f.type : f.resolvedType.name
  const shape = f.map ? `map<${(f as unknown as protobuf.MapField).keyType},${t}>` : f.repeated ? `repeated ${t}` : t
  const flags = [f.options?.['(json_inline)'] === true ? 'inline' : '', f.options?.proto3_optional === true ? 'keepZero' : '', f.repeated && f.packed === false && f.resolvedType === null && f.type !== 'string' && f.type !== 'bytes' ? 'unpacked' : ''].filter(x => x !== '')
  return `${f.id} ${shape}${flags.length > 0 ? ` [${flags.join(',')}]` : ''}`
}

/** Differences between two message types, field by field, following message-typed fields. */
function compareTypes (a: protobuf.Type, b: protobuf.Type, path: string, seen: Set<string>, out: string[]): void {
  const key = `${a.fullName}|${b.fullName}`
  if (seen.has(key)) return
  seen.add(key)
  if ((a.options?.['(json_list)'] === true) !== (b.options?.['(json_list)'] === true)) out.push(`${path}: json_list differs`)
  const names = new Set([...Object.keys(a.fields), ...Object.keys(b.fields)])
  for (const name of names) {
    const fa = a.fields[name]
    const fb = b.fields[name]
    if (fa === undefined || fb === undefined) { out.push(`${path}.${name}: only in the ${fa === undefined ? 'old' : 'built'} message`); continue }
    const da = describeField(fa)
    const db = describeField(fb)
    if (da !== db) out.push(`${path}.${name}: built ${da}, old ${db}`)
    if (fa.resolvedType instanceof protobuf.Type && fb.resolvedType instanceof protobuf.Type) compareTypes(fa.resolvedType, fb.resolvedType, `${path}.${name}`, seen, out)
  }
}

/** Properties of an object schema and fields of its message, both ways, following nested objects. */
function walkSchema (schema: Record<string, any>, type: protobuf.Type, path: string, top: boolean, out: string[], seen: Set<unknown>): void {
  if (seen.has(schema)) return
  seen.add(schema)
  const fields = new Map<string, protobuf.Field>()
  const collect = (t: protobuf.Type): void => {
    for (const f of t.fieldsArray) {
      if (f.options?.['(json_inline)'] === true) collect(f.resolvedType as protobuf.Type)
      else fields.set(f.name, f)
    }
  }
  collect(type)
  const description = protobufMessageOf(schema as TSchema)
  const jsonOnly = (k: string): boolean => {
    const spec = description?.fields[k]
    return typeof spec === 'object' && spec.jsonOnly === true
  }
  const properties = Object.entries({ ...(schema.properties ?? {}), ...Object.fromEntries(Object.entries(description?.wireOnly ?? {}).map(([k, w]) => [k, w.schema])) } as Record<string, any>)
    .filter(([k]) => !(top && (k === 'apiVersion' || k === 'kind')) && !jsonOnly(k))
  for (const [k, p] of properties) {
    const f = fields.get(k)
    if (f === undefined) { out.push(`${path}.${k}: no field in ${type.fullName}`); continue }
    let s = p
    if (Array.isArray(s.anyOf)) s = s.anyOf.find((v: any) => v.type !== 'null') ?? s
    if (s.type === 'array') s = s.items
    if (s?.patternProperties !== undefined) s = Object.values(s.patternProperties)[0]
    if (s?.type === 'object' && s.properties !== undefined && f.resolvedType instanceof protobuf.Type) walkSchema(s, f.resolvedType, `${path}.${k}`, false, out, seen)
  }
  const names = new Set(properties.map(([k]) => k))
  for (const name of fields.keys()) if (!names.has(name)) out.push(`${path}.${name}: no property in the schema for field of ${type.fullName}`)
}

describe('protobuf messages built from the schemas', () => {
  let codec: ProtobufCodec
  let before_: protobuf.Root
  let built: protobuf.Root
  before(async () => {
    codec = await ProtobufCodec.load()
    before_ = await loadBefore()
    built = loadProtoFiles()
    new SchemaMessageBuilder(built).addKinds(kindForms(RESOURCES))
    built.resolveAll()
  })

  it('describes every kind of RESOURCES, and every form it is served as, on its schema', () => {
    const missing = kindForms(RESOURCES).filter(f => protobufMessageOf(f.schema) === undefined).map(f => `${f.group}/${f.version} ${f.kind}`)
    assert.deepEqual(missing, [])
  })

  it('walks every kind\'s schema against its message: every property has a field and every field a property', () => {
    const problems: string[] = []
    for (const form of kindForms(RESOURCES)) {
      if (protobufMessageOf(form.schema) === undefined) continue
      const apiVersion = form.group === '' ? form.version : `${form.group}/${form.version}`
      const type = codec.messageOf(apiVersion, form.kind)
      if (type === undefined) { problems.push(`${apiVersion} ${form.kind}: no message`); continue }
      walkSchema(form.schema, type, `${apiVersion} ${form.kind}`, true, problems, new Set())
      if (form.listed && codec.messageOf(apiVersion, `${form.kind}List`) === undefined) problems.push(`${apiVersion} ${form.kind}List: no message`)
    }
    assert.deepEqual(problems, [])
  })

  it('builds the same messages as the .proto files copied from upstream before, field by field', () => {
    const problems: string[] = []
    const seen = new Set<string>()
    for (const form of kindForms(RESOURCES)) {
      const name = `${protoPackage(form.group)}.${form.version}.${form.kind}`
      const old = before_.lookup(name)
      if (!(old instanceof protobuf.Type)) continue
      const type = built.lookup(name)
      if (!(type instanceof protobuf.Type)) { problems.push(`${name}: not built`); continue }
      compareTypes(type, old, name, seen, problems)
    }
    assert.deepEqual(problems, INTENDED_CHANGES)
  })
})
