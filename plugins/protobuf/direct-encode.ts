// A kind's message written straight from its JSON, byte for byte what `toMessage` followed by
// protobufjs's `encode` writes, without the plain object and protobufjs's list of writer
// operations in between (the two are most of a protobuf list's cost: issue 32). Two walks of
// the JSON: `measure` learns the length of every message in it (pre-order, into a Layout), then
// `write` writes it, taking each nested message's length prefix from the Layout in the same order.
// Only the field shapes the served kinds' messages use are compiled; a message with any other
// (enums, groups, other scalar types) is left to the general path: `planOf` returns undefined.
import protobuf from 'protobufjs'
import { ConversionError, hasJsonForm, isInline, jsonFormToMessage, jsonKeys, TYPE_META_KEYS } from './convert.js'

type Json = any

type Scalar = 'string' | 'bytes' | 'int32' | 'int64' | 'bool'
const SCALARS = new Set<string>(['string', 'bytes', 'int32', 'int64', 'bool'])
const VARINT = 0
const LENGTH_DELIMITED = 2

interface FieldPlan {
  name: string
  /** The wire tag, and its varint's size. */
  tag: number
  tagSize: number
  shape: 'single' | 'repeated' | 'packed' | 'map' | 'inline'
  /** A scalar's type, or undefined for a message (then `type`). */
  scalar?: Scalar
  type?: protobuf.Type
}

interface MessagePlan {
  /** The fields in the order protobufjs writes them: by number. */
  fields: FieldPlan[]
  /** Messages with a JSON form of their own (times, quantities, embedded JSON...) are converted by `jsonFormToMessage` first. */
  special: boolean
}

const plans = new WeakMap<protobuf.Type, MessagePlan | null>()

/** The compiled plan of a message, or undefined when it (or a message it holds) has a field shape not compiled here. */
export function planOf (t: protobuf.Type): MessagePlan | undefined {
  const known = plans.get(t)
  if (known !== undefined) return known ?? undefined
  // Recursive messages see their own placeholder while they are compiled.
  const plan: MessagePlan = { fields: [], special: hasJsonForm(t) }
  plans.set(t, plan)
  for (const field of [...t.fieldsArray].sort((a, b) => a.id - b.id)) {
    field.resolve()
    const compiled = compileField(field)
    if (compiled === undefined) {
      plans.set(t, null)
      return undefined
    }
    plan.fields.push(compiled)
  }
  for (const f of plan.fields) {
    if (f.type !== undefined && planOf(f.type) === undefined) {
      plans.set(t, null)
      return undefined
    }
  }
  return plan
}

function compileField (field: protobuf.Field): FieldPlan | undefined {
  if (field.required || field.delimited || !field.optional && !field.repeated && !field.map) return undefined
  const resolved = field.resolvedType
  if (resolved !== null && !(resolved instanceof protobuf.Type)) return undefined
  const type = resolved ?? undefined
  const scalar = type === undefined ? field.type : undefined
  if (scalar !== undefined && !SCALARS.has(scalar)) return undefined
  const wire = type !== undefined || scalar === 'string' || scalar === 'bytes' ? LENGTH_DELIMITED : VARINT
  const base = { name: field.name, scalar: scalar as Scalar | undefined, type }
  if (field.map) {
    if ((field as unknown as protobuf.MapField).keyType !== 'string') return undefined
    return { ...base, shape: 'map', tag: tagOf(field.id, LENGTH_DELIMITED), tagSize: varint32Size(tagOf(field.id, LENGTH_DELIMITED)) }
  }
  if (field.repeated) {
    const packed = field.packed && scalar !== undefined && wire === VARINT
    const tag = tagOf(field.id, packed ? LENGTH_DELIMITED : wire)
    return { ...base, shape: packed ? 'packed' : 'repeated', tag, tagSize: varint32Size(tag) }
  }
  const tag = tagOf(field.id, wire)
  return { ...base, shape: isInline(field) ? 'inline' : 'single', tag, tagSize: varint32Size(tag) }
}

const tagOf = (id: number, wire: number): number => ((id << 3) | wire) >>> 0
const MAP_KEY_TAG = tagOf(1, LENGTH_DELIMITED)
const mapValueTag = (f: FieldPlan): number => tagOf(2, f.type !== undefined || f.scalar === 'string' || f.scalar === 'bytes' ? LENGTH_DELIMITED : VARINT)

const varint32Size = (n: number): number => n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5

/** protobufjs's recursion limit (util.recursionLimit): deeper messages are an error, not a conversion error. */
const RECURSION_LIMIT = 100

/** A lone surrogate: protobufjs writes it as its own three bytes, where Buffer writes U+FFFD. */
const SURROGATE = /[\uD800-\uDFFF]/

// ---- scalar values: what `scalarToMessage` accepts, and what protobufjs's writer writes ----

function checkScalar (scalar: Scalar, v: Json, path: string): void {
  switch (scalar) {
    case 'bytes': if (typeof v !== 'string') throw new ConversionError(`${path}: expected a base64 string`); return
    case 'string': if (typeof v !== 'string') throw new ConversionError(`${path}: expected a string`); return
    case 'bool': if (typeof v !== 'boolean') throw new ConversionError(`${path}: expected a boolean`); return
    default: if (typeof v !== 'number' || !Number.isInteger(v)) throw new ConversionError(`${path}: expected an integer`)
  }
}

/** protobufjs counts a lone surrogate as three bytes, as Buffer does for the replacement it writes. */
const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8')

/** A number as protobufjs's LongBits.fromNumber: 64 bits, two's complement. */
function longBits (value: number): { lo: number, hi: number } {
  if (value === 0) return { lo: 0, hi: 0 }
  const sign = value < 0
  if (sign) value = -value
  let lo = value >>> 0
  let hi = (value - lo) / 4294967296 >>> 0
  if (sign) {
    hi = ~hi >>> 0
    lo = ~lo >>> 0
    if (++lo > 4294967295) {
      lo = 0
      if (++hi > 4294967295) hi = 0
    }
  }
  return { lo, hi }
}

function varint64Size (lo: number, hi: number): number {
  const part0 = lo
  const part1 = (lo >>> 28 | hi << 4) >>> 0
  const part2 = hi >>> 24
  return part2 === 0
    ? part1 === 0
      ? part0 < 16384 ? part0 < 128 ? 1 : 2 : part0 < 2097152 ? 3 : 4
      : part1 < 16384 ? part1 < 128 ? 5 : 6 : part1 < 2097152 ? 7 : 8
    : part2 < 128 ? 9 : 10
}

/** The bytes of a scalar value after its tag (with its length prefix when it has one). */
function scalarSize (scalar: Scalar, v: Json): number {
  switch (scalar) {
    case 'string': {
      const n = utf8Length(v)
      return varint32Size(n) + n
    }
    case 'bytes': {
      // Buffer.byteLength only estimates base64 (it counts characters a decode skips).
      const n = Buffer.from(v, 'base64').length
      return varint32Size(n) + n
    }
    case 'bool': return 1
    // protobufjs truncates to 32 bits first, then writes a negative as ten bytes.
    case 'int32': return (v | 0) < 0 ? 10 : varint32Size(v | 0)
    case 'int64': {
      const { lo, hi } = longBits(v)
      return varint64Size(lo, hi)
    }
  }
}

/** Writes into a buffer sized by `measure`. */
class Out {
  at = 0
  constructor (readonly buf: Buffer) {}

  varint32 (n: number): void {
    n >>>= 0
    while (n > 127) {
      this.buf[this.at++] = (n & 127) | 128
      n >>>= 7
    }
    this.buf[this.at++] = n
  }

  varint64 (lo: number, hi: number): void {
    while (hi !== 0) {
      this.buf[this.at++] = (lo & 127) | 128
      lo = (lo >>> 7 | hi << 25) >>> 0
      hi >>>= 7
    }
    this.varint32(lo)
  }

  scalar (scalar: Scalar, v: Json): void {
    switch (scalar) {
      case 'string': {
        const n = utf8Length(v)
        this.varint32(n)
        if (SURROGATE.test(v)) protobuf.util.utf8.write(v, this.buf, this.at)
        else this.buf.write(v, this.at, n, 'utf8')
        this.at += n
        return
      }
      case 'bytes': {
        const bytes = Buffer.from(v, 'base64')
        this.varint32(bytes.length)
        bytes.copy(this.buf, this.at)
        this.at += bytes.length
        return
      }
      case 'bool': this.buf[this.at++] = v === true ? 1 : 0; return
      case 'int32': {
        const x = v | 0
        if (x < 0) {
          const { lo, hi } = longBits(x)
          this.varint64(lo, hi)
        } else {
          this.varint32(x)
        }
        return
      }
      case 'int64': {
        const { lo, hi } = longBits(v)
        this.varint64(lo, hi)
      }
    }
  }
}

// ---- messages: the JSON walked as `toMessage` walks it ----

/**
 * What `measure` learns of one JSON value for `write`: every message's length in pre-order, the
 * plain objects of the JSON forms (converted once), and how far `write` has read.
 */
export class Layout {
  readonly lengths: number[] = []
  readonly forms: Array<Record<string, unknown> | undefined> = []
  at = 0
}

const isObject = (v: Json): boolean => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The encoded length of `json` as message `t` (without a tag or length prefix of its own); the
 * length of every message inside it, this one first, is pushed onto `layout` in pre-order.
 */
export function measure (t: protobuf.Type, json: Json, layout: Layout, path = '', lenient = false, depth = 0): number {
  if (depth > RECURSION_LIMIT) throw Error('max depth exceeded')
  const plan = planOf(t)!
  if (plan.special) return measurePlain(t, jsonFormToMessage(t, json, path), layout, depth)
  if (!isObject(json)) throw new ConversionError(`${path || '.'}: expected an object`)
  if (!lenient) {
    const known = jsonKeys(t)
    for (const key in json) {
      if (!known.has(key) && !TYPE_META_KEYS.has(key)) {
        throw new ConversionError(`${path === '' ? key : `${path}.${key}`}: no such field in the protobuf message ${t.fullName.slice(1)}`)
      }
    }
  }
  const slot = layout.lengths.length
  layout.lengths.push(0)
  let size = 0
  for (const f of plan.fields) {
    if (f.shape === 'inline') {
      const n = measure(f.type!, json, layout, path, true, depth + 1)
      size += f.tagSize + varint32Size(n) + n
      continue
    }
    const v = json[f.name]
    if (v === undefined || v === null) continue
    const p = path === '' ? f.name : `${path}.${f.name}`
    if (f.shape === 'map') {
      if (typeof v !== 'object' || Array.isArray(v)) throw new ConversionError(`${p}: expected a map`)
      for (const k in v) {
        const x = v[k]
        if (x === null) continue
        const entry = 1 + utf8Length(k) + varint32Size(utf8Length(k)) + 1 + valueSize(f, x, layout, `${p}[${k}]`, lenient, depth)
        size += f.tagSize + varint32Size(entry) + entry
      }
    } else if (f.shape === 'single') {
      size += f.tagSize + valueSize(f, v, layout, p, lenient, depth)
    } else {
      if (!Array.isArray(v)) throw new ConversionError(`${p}: expected a list`)
      if (v.length === 0) continue
      if (f.shape === 'packed') {
        let n = 0
        for (let i = 0; i < v.length; i++) {
          checkScalar(f.scalar!, v[i], `${p}[${i}]`)
          n += scalarSize(f.scalar!, v[i])
        }
        size += f.tagSize + varint32Size(n) + n
      } else {
        for (let i = 0; i < v.length; i++) size += f.tagSize + valueSize(f, v[i], layout, `${p}[${i}]`, lenient, depth)
      }
    }
  }
  layout.lengths[slot] = size
  return size
}

/** A field's value after its tag: a scalar, or a message with its length prefix. */
function valueSize (f: FieldPlan, v: Json, layout: Layout, path: string, lenient: boolean, depth: number): number {
  if (f.scalar !== undefined) {
    checkScalar(f.scalar, v, path)
    return scalarSize(f.scalar, v)
  }
  const n = measure(f.type!, v, layout, path, lenient, depth + 1)
  return varint32Size(n) + n
}

/** Writes `json` as message `t` (no tag or length prefix of its own), taking lengths from `layout` where it is. */
export function write (t: protobuf.Type, json: Json, layout: Layout, out: Out): void {
  const plan = planOf(t)!
  if (plan.special) {
    writePlain(t, layout.forms[layout.at]!, layout, out)
    return
  }
  layout.at++
  for (const f of plan.fields) {
    if (f.shape === 'inline') {
      out.varint32(f.tag)
      out.varint32(layout.lengths[layout.at]!)
      write(f.type!, json, layout, out)
      continue
    }
    const v = json[f.name]
    if (v === undefined || v === null) continue
    if (f.shape === 'map') {
      for (const k in v) {
        const x = v[k]
        if (x === null) continue
        out.varint32(f.tag)
        const keyLength = utf8Length(k)
        const valueLength = f.scalar !== undefined ? scalarSize(f.scalar, x) : varint32Size(layout.lengths[layout.at]!) + layout.lengths[layout.at]!
        out.varint32(1 + varint32Size(keyLength) + keyLength + 1 + valueLength)
        out.varint32(MAP_KEY_TAG)
        out.scalar('string', k)
        out.varint32(mapValueTag(f))
        writeValue(f, x, layout, out)
      }
    } else if (f.shape === 'single') {
      out.varint32(f.tag)
      writeValue(f, v, layout, out)
    } else if (v.length > 0) {
      if (f.shape === 'packed') {
        out.varint32(f.tag)
        let n = 0
        for (const x of v) n += scalarSize(f.scalar!, x)
        out.varint32(n)
        for (const x of v) out.scalar(f.scalar!, x)
      } else {
        for (const x of v) {
          out.varint32(f.tag)
          writeValue(f, x, layout, out)
        }
      }
    }
  }
}

function writeValue (f: FieldPlan, v: Json, layout: Layout, out: Out): void {
  if (f.scalar !== undefined) {
    out.scalar(f.scalar, v)
    return
  }
  out.varint32(layout.lengths[layout.at]!)
  write(f.type!, v, layout, out)
}

// ---- the special forms' plain objects, written as protobufjs writes a plain object ----

function measurePlain (t: protobuf.Type, plain: Record<string, unknown>, layout: Layout, depth: number): number {
  const slot = layout.lengths.length
  layout.lengths.push(0)
  layout.forms[slot] = plain
  let size = 0
  for (const f of planOf(t)!.fields) {
    const v = plain[f.name]
    if (v === undefined || v === null) continue
    if (f.shape === 'repeated' && f.scalar !== undefined) {
      for (const x of v as unknown[]) size += f.tagSize + plainScalarSize(f.scalar, x)
    } else if (f.shape === 'single' && f.scalar !== undefined) {
      size += f.tagSize + plainScalarSize(f.scalar, v)
    } else {
      // The special forms hold scalars only; anything else is for the general path.
      throw new Error(`unexpected field ${f.name} in ${t.fullName}`)
    }
  }
  if (depth > RECURSION_LIMIT) throw Error('max depth exceeded')
  layout.lengths[slot] = size
  return size
}

/** A converted scalar: bytes are a Buffer here, not base64. */
const plainScalarSize = (scalar: Scalar, v: unknown): number =>
  scalar === 'bytes' ? varint32Size((v as Buffer).length) + (v as Buffer).length : scalarSize(scalar, v)

function writePlain (t: protobuf.Type, plain: Record<string, unknown>, layout: Layout, out: Out): void {
  layout.at++
  for (const f of planOf(t)!.fields) {
    const v = plain[f.name]
    if (v === undefined || v === null) continue
    if (f.shape === 'repeated') for (const x of v as unknown[]) writePlainScalar(f, x, out)
    else writePlainScalar(f, v, out)
  }
}

function writePlainScalar (f: FieldPlan, x: unknown, out: Out): void {
  out.varint32(f.tag)
  if (f.scalar !== 'bytes') {
    out.scalar(f.scalar!, x)
    return
  }
  const b = x as Buffer
  out.varint32(b.length)
  b.copy(out.buf, out.at)
  out.at += b.length
}

/** `json` as message `t`: what `t.encode(toMessage(t, json, '', lenient)).finish()` writes, and throws ConversionError where it does. */
export function encodeDirect (t: protobuf.Type, json: Json, lenient = false): Buffer {
  const layout = new Layout()
  const out = new Out(Buffer.allocUnsafe(measure(t, json, layout, '', lenient)))
  write(t, json, layout, out)
  return out.buf
}

export { Out }
