// CRD schemas run over client input: validation, pruning and defaulting never throw, whatever
// the value and whatever the schema (fast-check, seeded, bounded), and a schema's `pattern` runs
// on RE2 (linear in the input, as the reference's Go regexp), never on a backtracking engine.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { applyDefaults, prune, validateCustomObject, type JSONSchemaProps } from '../../machinery/openapi-schema/index.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 200)
const SEED = Number(process.env.FUZZ_SEED ?? 23)

const KEY = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'apiVersion', 'kind', 'metadata', 'spec', 'name', 'a', 'b'),
  fc.string({ maxLength: 6 })
)

const VALUE: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>(tie => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, -1e-308, 2 ** 53 + 1, '', 'a', '1', 'v1', 'Pod', 'a/b/c'),
    fc.string({ maxLength: 12 }),
    fc.double(),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(KEY, tie('value'), { maxKeys: 4 })
  )
})).value

const PATTERNS = ['^(a+)+$', '(a|aa)*b', '^[a-z]+$', '(', '(?i)abc', '\\d{2,}', '', '(?<name>x)', '[[:alpha:]]', '\\p{Greek}']
const FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'duration', 'uuid', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uri', 'email', 'quantity', 'isbn', 'creditcard', 'nonsense']
const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean', '', 'null', 'weird']

/** Schemas as CRDs write them: every keyword, with values at the edges (negative lengths, zero factors), three levels deep. */
function schemaAt (depth: number): fc.Arbitrary<JSONSchemaProps> {
  const scalar = {
    type: fc.constantFrom(...TYPES),
    format: fc.constantFrom(...FORMATS),
    nullable: fc.boolean(),
    default: VALUE,
    enum: fc.array(VALUE, { maxLength: 3 }),
    maximum: fc.double(),
    minimum: fc.integer({ min: -5, max: 5 }),
    exclusiveMaximum: fc.boolean(),
    exclusiveMinimum: fc.boolean(),
    multipleOf: fc.constantFrom(0, -1, 0.5, 2, 1e-9, 3),
    maxLength: fc.integer({ min: -1, max: 4 }),
    minLength: fc.integer({ min: -1, max: 4 }),
    pattern: fc.constantFrom(...PATTERNS),
    maxItems: fc.integer({ min: -1, max: 3 }),
    minItems: fc.integer({ min: -1, max: 3 }),
    uniqueItems: fc.boolean(),
    maxProperties: fc.integer({ min: -1, max: 3 }),
    minProperties: fc.integer({ min: -1, max: 3 }),
    required: fc.array(KEY, { maxLength: 3 }),
    'x-kubernetes-preserve-unknown-fields': fc.boolean(),
    'x-kubernetes-embedded-resource': fc.boolean(),
    'x-kubernetes-int-or-string': fc.boolean(),
    'x-kubernetes-list-type': fc.constantFrom('atomic', 'set', 'map'),
    'x-kubernetes-list-map-keys': fc.array(KEY, { maxLength: 2 })
  }
  if (depth === 0) return fc.record(scalar, { requiredKeys: [] }) as fc.Arbitrary<JSONSchemaProps>
  const sub = schemaAt(depth - 1)
  return fc.record({
    ...scalar,
    items: fc.oneof(sub, fc.array(sub, { maxLength: 2 })),
    properties: fc.dictionary(KEY, sub, { maxKeys: 3 }),
    additionalProperties: fc.oneof(fc.boolean(), sub),
    allOf: fc.array(sub, { maxLength: 2 }),
    anyOf: fc.array(sub, { maxLength: 2 }),
    oneOf: fc.array(sub, { maxLength: 2 }),
    not: sub
  }, { requiredKeys: [] }) as fc.Arbitrary<JSONSchemaProps>
}
const SCHEMA = schemaAt(3)

const KEYWORDS = ['type', 'format', 'nullable', 'default', 'enum', 'maximum', 'minimum', 'exclusiveMaximum', 'multipleOf',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'items', 'maxProperties', 'required',
  'properties', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'not', 'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys']

/** Keywords holding values of the wrong kind: a schema no CRD validation would let through. */
const GARBAGE: fc.Arbitrary<unknown> = fc.letrec<{ schema: unknown }>(tie => ({
  schema: fc.dictionary(fc.constantFrom(...KEYWORDS), fc.oneof({ depthSize: 'small' }, VALUE, tie('schema'), fc.dictionary(KEY, tie('schema'), { maxKeys: 2 })), { maxKeys: 5 })
})).schema

/** Whatever JSON a client or a careless CRD author may send as a schema. */
const ANY_SCHEMA = fc.oneof(SCHEMA, GARBAGE, VALUE) as fc.Arbitrary<JSONSchemaProps>

describe('openapi-schema on hostile input', () => {
  it('validate, prune and default never throw, and pruning twice prunes nothing more', () => {
    fc.assert(fc.property(ANY_SCHEMA, VALUE, (schema, value) => {
      const obj = structuredClone(value)
      validateCustomObject(schema, obj)
      applyDefaults(obj, schema)
      prune(obj, schema)
      assert.deepEqual(prune(obj, schema), [])
      validateCustomObject(schema, obj)
      for (const e of validateCustomObject(schema, obj)) assert.equal(typeof e.field, 'string')
    }), { numRuns: RUNS, seed: SEED })
  })

  it('a field error never carries the prototype of a hostile key', () => {
    fc.assert(fc.property(SCHEMA, (schema) => {
      const obj = JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}')
      applyDefaults(obj, schema)
      prune(obj, schema)
      validateCustomObject(schema, obj)
      assert.equal(({} as Record<string, unknown>).polluted, undefined)
    }), { numRuns: RUNS, seed: SEED })
  })
})

describe('pattern runs on RE2', () => {
  const schema = (pattern: string): JSONSchemaProps => ({ type: 'object', properties: { s: { type: 'string', pattern } } })

  // Backtracking engines take 2^n steps on these; at n = 64 no backtracking run would end.
  const catastrophic: Array<[string, (n: number) => string]> = [
    ['^(a+)+$', n => 'a'.repeat(n) + '!'],
    ['^(a|aa)+$', n => 'a'.repeat(n) + '!'],
    ['^(a|a?)+$', n => 'a'.repeat(n) + '!'],
    ['^(\\w+\\s?)*$', n => 'word '.repeat(n) + '!'],
    ['(x+x+)+y', n => 'x'.repeat(n)]
  ]
  for (const [pattern, input] of catastrophic) {
    it(`finishes ${pattern} against a hostile input`, () => {
      const errs = validateCustomObject(schema(pattern), { s: input(64) })
      assert.equal(errs.length, 1)
      assert.match(errs[0]!.detail!, /should match/)
    })
  }

  it('agrees with a regular expression where both engines share the syntax, on any short input', () => {
    const patterns = ['^(a+)+$', '^[a-c]*b$', 'ab|ba', '^a{2,3}$', '(a|b)*c', '^$']
    fc.assert(fc.property(fc.constantFrom(...patterns), fc.string({ unit: fc.constantFrom('a', 'b', 'c', '!'), maxLength: 12 }), (pattern, s) => {
      const errs = validateCustomObject(schema(pattern), { s })
      assert.equal(errs.length === 0, new RegExp(pattern).test(s), `${pattern} on ${JSON.stringify(s)}`)
    }), { numRuns: RUNS, seed: SEED })
  })

  it('takes Go\'s syntax, which JavaScript does not: an inline flag and POSIX classes', () => {
    assert.deepEqual(validateCustomObject(schema('(?i)^abc$'), { s: 'ABC' }), [])
    assert.deepEqual(validateCustomObject(schema('^[[:digit:]]+$'), { s: '123' }), [])
  })
})
