// Converts between the JSON shape the API serves and protobufjs messages, driven by the loaded
// message types. JSON keys are the proto field names; a few upstream types have a JSON form of
// their own (times, quantities, int-or-string, embedded JSON), handled by full name below.
import type protobuf from 'protobufjs'

type Json = any
type Plain = Record<string, unknown>

const TIME = '.meta.v1.Time'
const MICRO_TIME = '.meta.v1.MicroTime'
const FIELDS_V1 = '.meta.v1.FieldsV1'
const RAW_EXTENSION = '.runtime.RawExtension'
const INT_OR_STRING = '.runtime.IntOrString'
const QUANTITY = '.runtime.Quantity'

/** A value the JSON form cannot carry or the message cannot hold; the caller maps it to a 400. */
export class ConversionError extends Error {}

const NANOS_PER_SECOND = 1_000_000_000
const isLong = (v: unknown): v is { toNumber (): number } => typeof v === 'object' && v !== null && 'toNumber' in v
const toNumber = (v: unknown): number => isLong(v) ? v.toNumber() : Number(v)

/** An embedded Go struct whose fields JSON flattens into the parent (`[(json_inline) = true]`). */
export const isInline = (field: protobuf.Field): boolean => field.options?.['(json_inline)'] === true

/** The JSON keys a message takes: its own fields', and those of its inlined structs in their place. */
const jsonKeysCache = new WeakMap<protobuf.Type, Set<string>>()
export function jsonKeys (t: protobuf.Type): Set<string> {
  const cached = jsonKeysCache.get(t)
  if (cached !== undefined) return cached
  const keys = new Set<string>()
  jsonKeysCache.set(t, keys)
  for (const field of t.fieldsArray) {
    if (isInline(field)) for (const k of jsonKeys(field.resolvedType as protobuf.Type)) keys.add(k)
    else keys.add(field.name)
  }
  return keys
}

/** A message that in JSON is only its one list field (`option (json_list) = true`: ExtraValue). */
const isListWrapper = (t: protobuf.Type): boolean => t.options?.['(json_list)'] === true

function parseTime (s: unknown, path: string): { seconds: number, nanos: number } {
  if (typeof s !== 'string') throw new ConversionError(`${path}: expected an RFC 3339 time string`)
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i.exec(s)
  const ms = m === null ? NaN : Date.parse(`${m[1]}${m[3]}`)
  if (m === null || Number.isNaN(ms)) throw new ConversionError(`${path}: ${JSON.stringify(s)} is not an RFC 3339 time`)
  return { seconds: Math.floor(ms / 1000), nanos: m[2] === undefined ? 0 : Number(m[2].padEnd(9, '0')) }
}

function formatTime (seconds: number, nanos: number, micro: boolean): string {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19)
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`
}

function isZero (v: unknown): boolean {
  if (isLong(v)) return v.toNumber() === 0
  return v === '' || v === 0 || v === false || (v instanceof Uint8Array && v.length === 0)
}

// ---- JSON → message ----

function scalarToMessage (field: protobuf.Field, v: Json, path: string): unknown {
  switch (field.type) {
    case 'bytes':
      if (typeof v !== 'string') throw new ConversionError(`${path}: expected a base64 string`)
      return Buffer.from(v, 'base64')
    case 'string':
      if (typeof v !== 'string') throw new ConversionError(`${path}: expected a string`)
      return v
    case 'bool':
      if (typeof v !== 'boolean') throw new ConversionError(`${path}: expected a boolean`)
      return v
    default:
      if (typeof v !== 'number' || !Number.isInteger(v)) throw new ConversionError(`${path}: expected an integer`)
      return v
  }
}

function valueToMessage (field: protobuf.Field, v: Json, path: string, lenient: boolean): unknown {
  const t = field.resolvedType
  if (t === null) return scalarToMessage(field, v, path)
  return toMessage(t as protobuf.Type, v, path, lenient)
}

/** Keys of an object's JSON that are not message fields: typeMeta, which the envelope carries (list items carry it too). */
export const TYPE_META_KEYS = new Set(['apiVersion', 'kind'])

/**
 * The protobufjs plain object of `json` for message type `t` (ready for `t.encode`). A JSON key
 * the message has no field for is a ConversionError, so that nothing is dropped silently, unless
 * `lenient` (then it is left out).
 */
/** Messages whose JSON is not an object of their fields: times, quantities, int-or-string, embedded JSON, list wrappers. */
const JSON_FORMS = new Set([TIME, MICRO_TIME, FIELDS_V1, RAW_EXTENSION, QUANTITY, INT_OR_STRING])
const LIST_FORM = 'list'
/** Each message's JSON form: its full name, LIST_FORM, or '' for an object of its fields. protobufjs builds `fullName` anew at every read. */
const forms = new WeakMap<protobuf.Type, string>()
function formOf (t: protobuf.Type): string {
  let form = forms.get(t)
  if (form === undefined) {
    form = JSON_FORMS.has(t.fullName) ? t.fullName : isListWrapper(t) ? LIST_FORM : ''
    forms.set(t, form)
  }
  return form
}
export const hasJsonForm = (t: protobuf.Type): boolean => formOf(t) !== ''

/** Times seen lately, parsed: an object's timestamps repeat (its creation, its managed fields' times). */
const parsedTimes = new Map<string, { seconds: number, nanos: number }>()
const PARSED_TIMES_KEPT = 1024

function parseTimeCached (s: unknown, path: string): { seconds: number, nanos: number } {
  if (typeof s === 'string') {
    const known = parsedTimes.get(s)
    if (known !== undefined) return { seconds: known.seconds, nanos: known.nanos }
  }
  const parsed = parseTime(s, path)
  if (parsedTimes.size >= PARSED_TIMES_KEPT) parsedTimes.clear()
  parsedTimes.set(s as string, parsed)
  return { seconds: parsed.seconds, nanos: parsed.nanos }
}

/** The plain object of a message with a JSON form of its own (`hasJsonForm`). */
export function jsonFormToMessage (t: protobuf.Type, json: Json, path: string): Plain {
  switch (formOf(t)) {
    case TIME: case MICRO_TIME: return parseTimeCached(json, path)
    case FIELDS_V1: return { Raw: Buffer.from(JSON.stringify(json)) }
    case RAW_EXTENSION: return { raw: Buffer.from(JSON.stringify(json)) }
    case QUANTITY:
      if (typeof json !== 'string' && typeof json !== 'number') throw new ConversionError(`${path}: expected a quantity`)
      return { string: String(json) }
    case INT_OR_STRING:
      if (typeof json === 'number' && Number.isInteger(json)) return { type: 0, intVal: json }
      if (typeof json === 'string') return { type: 1, strVal: json }
      throw new ConversionError(`${path}: expected an integer or a string`)
  }
  if (!Array.isArray(json)) throw new ConversionError(`${path}: expected a list`)
  return { items: json.map((x, i) => scalarToMessage(t.fieldsArray[0]!, x, `${path}[${i}]`)) }
}

/**
 * The protobufjs plain object of `json` for message type `t` (ready for `t.encode`). A JSON key
 * the message has no field for is a ConversionError, so that nothing is dropped silently, unless
 * `lenient` (then it is left out).
 */
export function toMessage (t: protobuf.Type, json: Json, path = '', lenient = false): Plain {
  if (hasJsonForm(t)) return jsonFormToMessage(t, json, path)
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ConversionError(`${path || '.'}: expected an object`)
  if (!lenient) {
    const known = jsonKeys(t)
    for (const key of Object.keys(json)) {
      if (!known.has(key) && !TYPE_META_KEYS.has(key)) {
        throw new ConversionError(`${path === '' ? key : `${path}.${key}`}: no such field in the protobuf message ${t.fullName.slice(1)}`)
      }
    }
  }
  const out: Plain = {}
  for (const field of t.fieldsArray) {
    if (isInline(field)) {
      // Unknown keys were checked above against the parent, which holds the inlined fields.
      out[field.name] = toMessage(field.resolvedType as protobuf.Type, json, path, true)
      continue
    }
    const v = json[field.name]
    if (v === undefined || v === null) continue
    const p = path === '' ? field.name : `${path}.${field.name}`
    if (field.map) {
      if (typeof v !== 'object' || Array.isArray(v)) throw new ConversionError(`${p}: expected a map`)
      const m: Plain = {}
      for (const [k, x] of Object.entries(v)) if (x !== null) m[k] = valueToMessage(field, x, `${p}[${k}]`, lenient)
      out[field.name] = m
    } else if (field.repeated) {
      if (!Array.isArray(v)) throw new ConversionError(`${p}: expected a list`)
      out[field.name] = v.map((x, i) => valueToMessage(field, x, `${p}[${i}]`, lenient))
    } else {
      out[field.name] = valueToMessage(field, v, p, lenient)
    }
  }
  return out
}

// ---- message → JSON ----

function scalarFromMessage (field: protobuf.Field, v: unknown): Json {
  if (field.type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64')
  if (field.long) return toNumber(v)
  return v
}

function valueFromMessage (field: protobuf.Field, v: unknown): Json {
  const t = field.resolvedType
  return t === null ? scalarFromMessage(field, v) : fromMessage(t as protobuf.Type, v as protobuf.Message)
}

function parseEmbeddedJson (raw: Uint8Array | undefined): Json {
  if (raw === undefined || raw.length === 0) return undefined
  try {
    return JSON.parse(Buffer.from(raw).toString('utf8'))
  } catch {
    throw new ConversionError('an embedded object is not JSON')
  }
}

/**
 * The JSON of a decoded message, as upstream's JSON encoding renders the same Go value: zero
 * scalars are left out unless the field is `optional` (a pointer), empty lists and maps too,
 * nested messages stay (Go structs are always rendered), the zero time is left out (null).
 */
export function fromMessage (t: protobuf.Type, msg: protobuf.Message | Plain): Json {
  const m = msg as Plain
  switch (t.fullName) {
    case TIME: case MICRO_TIME: {
      const seconds = toNumber(m.seconds ?? 0)
      const nanos = Number(m.nanos ?? 0)
      return seconds === 0 && nanos === 0 ? undefined : formatTime(seconds, nanos, t.fullName === MICRO_TIME)
    }
    case FIELDS_V1: return parseEmbeddedJson(m.Raw as Uint8Array | undefined)
    case RAW_EXTENSION: return parseEmbeddedJson(m.raw as Uint8Array | undefined)
    case QUANTITY: return m.string ?? ''
    case INT_OR_STRING: return toNumber(m.type ?? 0) === 1 ? (m.strVal ?? '') : Number(m.intVal ?? 0)
  }
  if (isListWrapper(t)) return [...((m.items as unknown[] | undefined) ?? [])]
  const out: Plain = {}
  for (const field of t.fieldsArray) {
    if (!Object.prototype.hasOwnProperty.call(m, field.name)) continue
    const v = m[field.name]
    if (v === undefined || v === null) continue
    if (field.map) {
      const entries = Object.entries(v as Plain)
      if (entries.length === 0) continue
      const o: Plain = {}
      for (const [k, x] of entries) o[k] = valueFromMessage(field, x)
      out[field.name] = o
    } else if (field.repeated) {
      const list = v as unknown[]
      if (list.length === 0) continue
      out[field.name] = list.map(x => valueFromMessage(field, x))
    } else if (isInline(field)) {
      Object.assign(out, valueFromMessage(field, v))
    } else if (field.resolvedType !== null) {
      const x = valueFromMessage(field, v)
      if (x !== undefined) out[field.name] = x
    } else if (field.options?.proto3_optional === true || !isZero(v)) {
      out[field.name] = scalarFromMessage(field, v)
    }
  }
  return out
}
