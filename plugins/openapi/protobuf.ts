// The v2 document in gnostic's protobuf form (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`),
// which kubectl 1.27 and 1.28 read; converted from the JSON document so both always agree.
import { readFileSync } from 'node:fs'
import protobuf from 'protobufjs'
import { stringify as toYaml } from 'yaml'

type Json = Record<string, any>

const root = protobuf.parse(readFileSync(new URL('./openapiv2.proto', import.meta.url), 'utf8'), { keepCase: true }).root
const DocumentType = root.lookupType('openapi.v2.Document')

const yamlAny = (value: unknown): Json => ({ yaml: toYaml(value) })

/** `x-` keys as gnostic's vendor extensions, their values as YAML. */
const extensions = (o: Json): Json[] =>
  Object.keys(o).filter(k => k.startsWith('x-')).map(k => ({ name: k, value: yamlAny(o[k]) }))

function schema (s: Json): Json {
  const out: Json = {}
  if (s.$ref !== undefined) out._ref = s.$ref
  for (const k of ['format', 'title', 'description', 'pattern', 'discriminator']) if (s[k] !== undefined) out[k] = s[k]
  for (const [k, f] of [['maximum', 'maximum'], ['minimum', 'minimum'], ['multipleOf', 'multiple_of']] as const) if (s[k] !== undefined) out[f] = s[k]
  for (const [k, f] of [['maxLength', 'max_length'], ['minLength', 'min_length'], ['maxItems', 'max_items'], ['minItems', 'min_items'], ['maxProperties', 'max_properties'], ['minProperties', 'min_properties']] as const) if (s[k] !== undefined) out[f] = s[k]
  if (s.uniqueItems !== undefined) out.unique_items = s.uniqueItems
  if (s.readOnly !== undefined) out.read_only = s.readOnly
  if (s.default !== undefined) out.default = yamlAny(s.default)
  if (Array.isArray(s.required)) out.required = s.required
  if (Array.isArray(s.enum)) out.enum = s.enum.map(yamlAny)
  if (s.type !== undefined) out.type = { value: Array.isArray(s.type) ? s.type : [s.type] }
  if (s.items !== undefined) out.items = { schema: [schema(s.items)] }
  if (Array.isArray(s.allOf)) out.all_of = s.allOf.map(schema)
  if (s.properties !== undefined) out.properties = { additional_properties: Object.entries(s.properties).map(([name, v]) => ({ name, value: schema(v as Json) })) }
  if (s.additionalProperties !== undefined) {
    out.additional_properties = typeof s.additionalProperties === 'boolean' ? { boolean: s.additionalProperties } : { schema: schema(s.additionalProperties) }
  }
  const ext = extensions(s)
  if (ext.length > 0) out.vendor_extension = ext
  return out
}

function parameter (p: Json): Json {
  if (p.in === 'body') {
    return { parameter: { body_parameter: { name: p.name, in: p.in, description: p.description ?? '', required: p.required === true, schema: schema(p.schema) } } }
  }
  const common = { name: p.name, in: p.in, description: p.description ?? '', required: p.required === true, type: p.type, unique_items: p.uniqueItems === true }
  const key = p.in === 'path' ? 'path_parameter_sub_schema' : 'query_parameter_sub_schema'
  return { parameter: { non_body_parameter: { [key]: common } } }
}

function operation (o: Json): Json {
  return {
    tags: o.tags ?? [],
    description: o.description ?? '',
    operation_id: o.operationId ?? '',
    produces: o.produces ?? [],
    consumes: o.consumes ?? [],
    schemes: o.schemes ?? [],
    parameters: (o.parameters ?? []).map(parameter),
    responses: {
      response_code: Object.entries(o.responses ?? {}).map(([name, r]) => {
        const resp = r as Json
        const value: Json = { description: resp.description ?? '' }
        if (resp.schema !== undefined) value.schema = { schema: schema(resp.schema) }
        return { name, value: { response: value } }
      })
    },
    vendor_extension: extensions(o)
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']

/** Encodes a Swagger 2.0 JSON document as an openapi.v2.Document. */
export function encodeV2 (doc: Json): Uint8Array {
  const message = {
    swagger: doc.swagger,
    info: { title: doc.info?.title ?? '', version: doc.info?.version ?? '' },
    paths: {
      path: Object.entries(doc.paths ?? {}).map(([name, item]) => {
        const value: Json = {}
        for (const m of METHODS) if ((item as Json)[m] !== undefined) value[m] = operation((item as Json)[m])
        return { name, value }
      })
    },
    definitions: { additional_properties: Object.entries(doc.definitions ?? {}).map(([name, s]) => ({ name, value: schema(s as Json) })) },
    security_definitions: {
      additional_properties: Object.entries(doc.securityDefinitions ?? {}).map(([name, d]) => ({ name, value: { api_key_security: { ...(d as Json) } } }))
    },
    security: (doc.security ?? []).map((req: Json) => ({ additional_properties: Object.entries(req).map(([name, v]) => ({ name, value: { value: v } })) }))
  }
  const problem = DocumentType.verify(message)
  if (problem !== null) throw new Error(`openapi v2 protobuf: ${problem}`)
  return DocumentType.encode(DocumentType.fromObject(message)).finish()
}

/** Decodes an openapi.v2.Document (tests read the served bytes back with it). */
export const decodeV2 = (bytes: Uint8Array): Json =>
  DocumentType.toObject(DocumentType.decode(bytes), { longs: Number, defaults: false }) as Json
