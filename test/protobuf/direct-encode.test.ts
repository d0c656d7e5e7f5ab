import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import protobuf from 'protobufjs'
import { ProtobufCodec } from '../../plugins/protobuf/codec.js'
import { ConversionError, hasJsonForm, isInline, toMessage } from '../../plugins/protobuf/convert.js'
import { encodeDirect, planOf } from '../../plugins/protobuf/direct-encode.js'

/** What the general path writes for `json`, or 'refused' where it throws a ConversionError. */
function general (t: protobuf.Type, json: unknown, lenient = false): Buffer | 'refused' {
  try {
    return Buffer.from(t.encode(toMessage(t, json, '', lenient)).finish())
  } catch (err) {
    if (err instanceof ConversionError) return 'refused'
    throw err
  }
}

function direct (t: protobuf.Type, json: unknown, lenient = false): Buffer | 'refused' {
  try {
    return encodeDirect(t, json, lenient)
  } catch (err) {
    if (err instanceof ConversionError) return 'refused'
    throw err
  }
}

// Strings with lone surrogates, multi-byte characters and ASCII.
const anyString = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ unit: fc.integer({ min: 0xd7f0, max: 0xe010 }).map(c => String.fromCharCode(c)), maxLength: 4 }))
const anyInteger = fc.oneof(fc.integer({ min: -3, max: 300 }), fc.integer(), fc.maxSafeInteger(), fc.constantFrom(-1, 2 ** 31, 2 ** 32 + 5, -(2 ** 40), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER))
const wrongValue = fc.oneof(fc.constant(1.5), fc.constant(true), fc.constant('x'), fc.constant([]), fc.constant({}), fc.constant(7))

/** JSON for message `t`, mostly well formed, now and then not (a wrong type, an unknown key, a null). */
function arbitraryFor (t: protobuf.Type, depth: number): fc.Arbitrary<unknown> {
  switch (t.fullName) {
    case '.meta.v1.Time': case '.meta.v1.MicroTime':
      return fc.oneof(fc.constantFrom('2026-11-28T10:00:00Z', '2026-11-28T10:00:00.123456Z', '1970-01-01T00:00:00Z', '2026-11-28T10:00:00+02:00', 'yesterday'), wrongValue)
    case '.meta.v1.FieldsV1': case '.runtime.RawExtension':
      return fc.jsonValue({ maxDepth: 2 })
    case '.runtime.Quantity': return fc.oneof(fc.constantFrom('1', '500m', '2Gi'), anyInteger, wrongValue)
    case '.runtime.IntOrString': return fc.oneof(anyInteger, anyString, wrongValue)
  }
  if (hasJsonForm(t)) return fc.oneof(fc.array(anyString, { maxLength: 3 }), fc.array(wrongValue, { maxLength: 2 }))
  const fields: Record<string, fc.Arbitrary<unknown>> = {}
  for (const field of t.fieldsArray) {
    if (isInline(field)) continue
    const value = valueFor(field, depth)
    if (value === undefined) continue
    if (field.map) fields[field.name] = fc.dictionary(anyString, fc.oneof({ weight: 8, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }), { maxKeys: 3 })
    else if (field.repeated) fields[field.name] = fc.oneof({ weight: 8, arbitrary: fc.array(value, { maxLength: 3 }) }, { weight: 1, arbitrary: wrongValue })
    else fields[field.name] = fc.oneof({ weight: 12, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: wrongValue })
  }
  const object = fc.record(fields, { requiredKeys: [] })
  return fc.oneof(
    { weight: 20, arbitrary: object },
    { weight: 1, arbitrary: object.map(o => ({ ...o, notAField: 1 })) },
    { weight: 1, arbitrary: wrongValue }
  )
}

function valueFor (field: protobuf.Field, depth: number): fc.Arbitrary<unknown> | undefined {
  const t = field.resolvedType
  if (t instanceof protobuf.Type) return depth <= 0 ? undefined : fc.constant(null).chain(() => arbitraryFor(t, depth - 1))
  switch (field.type) {
    case 'string': return anyString
    case 'bytes': return fc.oneof(fc.base64String({ maxLength: 12 }), fc.constantFrom('not base64!', '=='))
    case 'bool': return fc.boolean()
    default: return anyInteger
  }
}

describe('protobuf written straight from JSON', () => {
  let codec: ProtobufCodec
  const kinds = ['ConfigMap', 'Secret', 'Pod', 'Service', 'Namespace', 'Event', 'PersistentVolume', 'ServiceAccount']
  before(async () => { codec = await ProtobufCodec.load() })

  it('compiles every served kind of the core group', () => {
    for (const kind of kinds) assert.ok(planOf(codec.messageOf('v1', kind)!), kind)
  })

  it('writes the same bytes as protobufjs, and refuses the same JSON', () => {
    for (const kind of kinds) {
      const t = codec.messageOf('v1', kind)!
      fc.assert(fc.property(arbitraryFor(t, 4), fc.boolean(), (json, lenient) => {
        assert.deepEqual(direct(t, json, lenient), general(t, json, lenient))
      }), { numRuns: 300 })
    }
  })

  it('agrees with protobufjs on every message this server has', () => {
    const all: protobuf.Type[] = []
    const visit = (ns: protobuf.NamespaceBase): void => {
      for (const n of ns.nestedArray) {
        if (n instanceof protobuf.Type) all.push(n)
        if (n instanceof protobuf.Namespace || n instanceof protobuf.Type) visit(n)
      }
    }
    visit(codec.messageOf('v1', 'ConfigMap')!.root)
    assert.ok(all.length > 300)
    for (const t of all) {
      assert.ok(planOf(t), t.fullName)
      fc.assert(fc.property(arbitraryFor(t, 2), (json) => {
        assert.deepEqual(direct(t, json), general(t, json))
      }), { numRuns: 8 })
    }
  })

  it('writes a typical stored object as protobufjs does', () => {
    const t = codec.messageOf('v1', 'ConfigMap')!
    const json = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c', namespace: 'ns', uid: 'u', resourceVersion: '12', creationTimestamp: '2026-11-28T10:00:00Z', labels: { a: 'b' },
        managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: '2026-11-28T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } }]
      },
      data: { x: 'é𝄞\ud800' },
      binaryData: { y: 'AAH+/w==' }
    }
    assert.deepEqual(encodeDirect(t, json), general(t, json))
  })
})
