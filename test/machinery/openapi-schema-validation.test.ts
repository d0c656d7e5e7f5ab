// Validation of custom objects against a CRD schema: each rule, with the reference's field
// path and message (kube-openapi's wording through kubeOpenAPIResultToFieldErrors).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { embeddedObjectMetas, validateCustomObject, type JSONSchemaProps } from '../../machinery/openapi-schema/index.js'
import { fieldErrorText, invalid } from '../../resources/status.js'

const texts = (schema: JSONSchemaProps, obj: unknown): string[] =>
  validateCustomObject(schema, obj).map(e => `${e.field}: ${fieldErrorText(e)}`)

const spec = (properties: Record<string, JSONSchemaProps>, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...extra } }
})

interface Case { name: string, schema: JSONSchemaProps, spec: unknown, want: string[] }

const cases: Case[] = [
  { name: 'a value of the wrong type', schema: spec({ replicas: { type: 'integer' } }), spec: { replicas: 'three' }, want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'] },
  { name: 'an integral float where an integer is wanted', schema: spec({ replicas: { type: 'integer' } }), spec: { replicas: 3.0 }, want: [] },
  { name: 'a fraction where an integer is wanted', schema: spec({ replicas: { type: 'integer' } }), spec: { replicas: 1.5 }, want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'] },
  { name: 'a whole number past int64, a float past 2^53 and so no integer', schema: spec({ replicas: { type: 'integer' } }), spec: { replicas: 1e300 }, want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'] },
  { name: 'a huge whole number bounded as a float', schema: spec({ n: { type: 'number', maximum: 10 } }), spec: { n: 1e300 }, want: ['spec.n: Invalid value: 1e+300: spec.n in body should be less than or equal to 10'] },
  { name: 'an integer where a number is wanted', schema: spec({ ratio: { type: 'number' } }), spec: { ratio: 2 }, want: [] },
  { name: 'a fraction against int32', schema: spec({ n: { type: 'integer', format: 'int32' } }), spec: { n: 1.5 }, want: ['spec.n: Invalid value: "float64": spec.n in body must be of type int32: "float64"'] },
  { name: 'an object where a string is wanted', schema: spec({ s: { type: 'string' } }), spec: { s: { a: 1 } }, want: ['spec.s: Invalid value: "object": spec.s in body must be of type string: "object"'] },
  { name: 'null where not nullable', schema: spec({ s: { type: 'string' } }), spec: { s: null }, want: ['spec.s: Invalid value: "null": spec.s in body must be of type string: "null"'] },
  { name: 'null where nullable', schema: spec({ s: { type: 'string', nullable: true } }), spec: { s: null }, want: [] },
  { name: 'a missing required field', schema: spec({ a: { type: 'string' } }, { required: ['a', 'b'] }), spec: { a: 'x' }, want: ['spec.b: Required value'] },
  { name: 'a required field at the root', schema: { type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } }, spec: undefined, want: ['spec: Required value'] },
  { name: 'a value outside the enum', schema: spec({ mode: { type: 'string', enum: ['a', 'b'] } }), spec: { mode: 'x' }, want: ['spec.mode: Unsupported value: "x": supported values: "a", "b"'] },
  { name: 'a number outside a numeric enum', schema: spec({ n: { type: 'integer', enum: [1, 2] } }), spec: { n: 3 }, want: ['spec.n: Unsupported value: 3: supported values: "1", "2"'] },
  { name: 'a string past maxLength', schema: spec({ s: { type: 'string', maxLength: 3 } }), spec: { s: 'abcd' }, want: ['spec.s: Too long: may not be more than 3 bytes'] },
  { name: 'maxLength counts characters, not bytes', schema: spec({ s: { type: 'string', maxLength: 3 } }), spec: { s: 'äöü' }, want: [] },
  { name: 'a string under minLength', schema: spec({ s: { type: 'string', minLength: 2 } }), spec: { s: 'a' }, want: ['spec.s: Invalid value: "a": spec.s in body should be at least 2 chars long'] },
  { name: 'a string against its pattern', schema: spec({ s: { type: 'string', pattern: '^[a-z]+$' } }), spec: { s: 'A1' }, want: ["spec.s: Invalid value: \"A1\": spec.s in body should match '^[a-z]+$'"] },
  { name: 'a pattern matches anywhere unless anchored', schema: spec({ s: { type: 'string', pattern: '[0-9]' } }), spec: { s: 'ab1cd' }, want: [] },
  { name: 'a pattern RE2 cannot compile', schema: spec({ s: { type: 'string', pattern: '(a' } }), spec: { s: 'a' }, want: ["spec.s: Invalid value: \"a\": spec.s in body should match '(a, but pattern is invalid: error parsing regexp: missing closing ): `(a`'"] },
  { name: 'only the first string error', schema: spec({ s: { type: 'string', maxLength: 1, pattern: '^x$' } }), spec: { s: 'ab' }, want: ['spec.s: Too long: may not be more than 1 byte'] },
  { name: 'a number above its maximum', schema: spec({ n: { type: 'integer', maximum: 10 } }), spec: { n: 11 }, want: ['spec.n: Invalid value: 11: spec.n in body should be less than or equal to 10'] },
  { name: 'a number at an exclusive maximum', schema: spec({ n: { type: 'integer', maximum: 10, exclusiveMaximum: true } }), spec: { n: 10 }, want: ['spec.n: Invalid value: 10: spec.n in body should be less than 10'] },
  { name: 'a number below its minimum', schema: spec({ n: { type: 'number', minimum: 0.5 } }), spec: { n: 0.25 }, want: ['spec.n: Invalid value: 0.25: spec.n in body should be greater than or equal to 0.5'] },
  { name: 'a number at an exclusive minimum', schema: spec({ n: { type: 'integer', minimum: 0, exclusiveMinimum: true } }), spec: { n: 0 }, want: ['spec.n: Invalid value: 0: spec.n in body should be greater than 0'] },
  { name: 'a large bound as Go prints a float', schema: spec({ n: { type: 'number', maximum: 1000000 } }), spec: { n: 1000000.5 }, want: ['spec.n: Invalid value: 1000000.5: spec.n in body should be less than or equal to 1e+06'] },
  { name: 'a number not a multiple', schema: spec({ n: { type: 'integer', multipleOf: 5 } }), spec: { n: 7 }, want: ['spec.n: Invalid value: 7: spec.n in body should be a multiple of 5'] },
  { name: 'a fractional multiple', schema: spec({ n: { type: 'number', multipleOf: 0.5 } }), spec: { n: 1.25 }, want: ['spec.n: Invalid value: 1.25: spec.n in body should be a multiple of 0.5'] },
  { name: 'several number errors at once', schema: spec({ n: { type: 'integer', multipleOf: 2, maximum: 4 } }), spec: { n: 5 }, want: ['spec.n: Invalid value: 5: spec.n in body should be a multiple of 2', 'spec.n: Invalid value: 5: spec.n in body should be less than or equal to 4'] },
  { name: 'too few items', schema: spec({ l: { type: 'array', minItems: 1, items: { type: 'string' } } }), spec: { l: [] }, want: ['spec.l: Invalid value: 0: spec.l in body should have at least 1 items'] },
  { name: 'too many items', schema: spec({ l: { type: 'array', maxItems: 2, items: { type: 'string' } } }), spec: { l: ['a', 'b', 'c'] }, want: ['spec.l: Too many: 3: must have at most 2 items'] },
  { name: 'duplicate items', schema: spec({ l: { type: 'array', uniqueItems: true, items: { type: 'object' } } }), spec: { l: [{ a: 1, b: 2 }, { b: 2, a: 1 }] }, want: ['spec.l: Invalid value: "": spec.l in body shouldn\'t contain duplicates'] },
  { name: 'an item of the wrong type', schema: spec({ l: { type: 'array', items: { type: 'string' } } }), spec: { l: ['a', 1] }, want: ['spec.l[1]: Invalid value: "integer": spec.l[1] in body must be of type string: "integer"'] },
  { name: 'a field of an item', schema: spec({ l: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } }), spec: { l: [{ name: 'a' }, {}] }, want: ['spec.l[1].name: Required value'] },
  { name: 'too few properties', schema: spec({ m: { type: 'object', minProperties: 1 } }), spec: { m: {} }, want: ['spec.m: Invalid value: 0: spec.m in body should have at least 1 properties'] },
  { name: 'too many properties', schema: spec({ m: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } }), spec: { m: { a: 'x', b: 'y' } }, want: ['spec.m: Too many: 2: must have at most 1 item'] },
  { name: 'a map value of the wrong type', schema: spec({ m: { type: 'object', additionalProperties: { type: 'string' } } }), spec: { m: { a: 1 } }, want: ['spec.m.a: Invalid value: "integer": spec.m.a in body must be of type string: "integer"'] },
  { name: 'a property additionalProperties: false forbids', schema: spec({ m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } }), spec: { m: { a: 'x', b: 'y' } }, want: ['spec.m: Invalid value: "b": spec.m.b in body is a forbidden property'] },
  { name: 'int-or-string takes both', schema: spec({ port: { 'x-kubernetes-int-or-string': true } }), spec: { port: 'http' }, want: [] },
  { name: 'int-or-string refuses a boolean', schema: spec({ port: { 'x-kubernetes-int-or-string': true } }), spec: { port: true }, want: ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'] },
  { name: 'a format violation', schema: spec({ id: { type: 'string', format: 'uuid' } }), spec: { id: 'nope' }, want: ['spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"'] },
  { name: 'date-time is datetime', schema: spec({ t: { type: 'string', format: 'date-time' } }), spec: { t: '2024-02-30T00:00:00Z' }, want: ['spec.t: Invalid value: "2024-02-30T00:00:00Z": spec.t in body must be of type date-time: "2024-02-30T00:00:00Z"'] },
  { name: 'an unknown format is ignored', schema: spec({ s: { type: 'string', format: 'k8s-short-name' } }), spec: { s: 'Not_A_Name' }, want: [] },
  { name: 'a string format on an integer is ignored', schema: spec({ n: { type: 'integer', format: 'uuid' } }), spec: { n: 1 }, want: [] },
  {
    name: 'oneOf with none valid',
    schema: spec({ v: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] } }),
    spec: { v: {} },
    want: ['<nil>: Invalid value: "": "spec.v" must validate one and only one schema (oneOf). Found none valid', 'spec.v.a: Required value']
  },
  {
    name: 'oneOf with two valid',
    schema: spec({ v: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] } }),
    spec: { v: { a: 'x', b: 'y' } },
    want: ['<nil>: Invalid value: "": "spec.v" must validate one and only one schema (oneOf). Found 2 valid alternatives']
  },
  {
    name: 'anyOf with none valid',
    schema: spec({ v: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 2 }] } }),
    spec: { v: 5 },
    want: ['<nil>: Invalid value: "": "spec.v" must validate at least one schema (anyOf)', 'spec.v: Invalid value: 5: spec.v in body should be greater than or equal to 10']
  },
  {
    name: 'allOf with one failing',
    schema: spec({ v: { type: 'integer', allOf: [{ minimum: 1 }, { maximum: 2 }] } }),
    spec: { v: 3 },
    want: ['spec.v: Invalid value: 3: spec.v in body should be less than or equal to 2', '<nil>: Invalid value: "": "spec.v" must validate all the schemas (allOf)']
  },
  { name: 'not matching', schema: spec({ v: { type: 'string', not: { enum: ['forbidden'] } } }), spec: { v: 'forbidden' }, want: ['<nil>: Invalid value: "": "spec.v" must not validate the schema (not)'] },
  {
    name: 'a set with a duplicate',
    schema: spec({ l: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }),
    spec: { l: ['a', 'b', 'a', 'a'] },
    want: ['spec.l[2]: Duplicate value: "a"']
  },
  {
    name: 'a map list with a duplicate key',
    schema: spec({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } } } }),
    spec: { l: [{ name: 'a', v: 1 }, { name: 'a', v: 2 }] },
    want: ['spec.l[1]: Duplicate value: {"name":"a"}']
  },
  {
    name: 'a map list with a duplicate key pair',
    schema: spec({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'], items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } } } }),
    spec: { l: [{ port: 80, protocol: 'TCP' }, { port: 80, protocol: 'UDP' }, { protocol: 'TCP', port: 80 }] },
    want: ['spec.l[2]: Duplicate value: {"port":80,"protocol":"TCP"}']
  },
  {
    name: 'an embedded resource without apiVersion and with a bad kind',
    schema: spec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    spec: { template: { kind: 'not_a_kind' } },
    want: [
      'spec.template.apiVersion: Required value',
      "spec.template.kind: Invalid value: \"not_a_kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    ]
  },
  {
    name: 'an embedded resource with a bad apiVersion',
    schema: spec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    spec: { template: { apiVersion: 'a/b/c', kind: 'Pod' } },
    want: ['spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']
  }
]

describe('openapi-schema validation', () => {
  for (const c of cases) {
    it(`reports ${c.name}`, () => {
      const obj = c.spec === undefined ? {} : { spec: c.spec }
      assert.deepEqual(texts(c.schema, obj), c.want)
    })
  }

  it('renders as the reference\'s 422 Invalid', () => {
    const errs = validateCustomObject(spec({ replicas: { type: 'integer' } }), { spec: { replicas: 'x' } })
    const status = invalid({ group: 'stable.example.com', kind: 'CronTab' }, 'my-crontab', errs).status
    assert.equal(status.message, 'CronTab.stable.example.com "my-crontab" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"')
    assert.deepEqual(status.details?.causes, [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"', field: 'spec.replicas' }])
  })

  it('accepts the formats the reference knows in their valid forms', () => {
    const valid: Record<string, string> = {
      int32: '', byte: 'aGVsbG8=', date: '2024-02-29', 'date-time': '2024-01-02T03:04:05.123Z', duration: '1h30m', uuid: '123e4567-e89b-12d3-a456-426614174000',
      hostname: 'example.com', ipv4: '10.0.0.1', ipv6: '2001:db8::1', cidr: '10.0.0.0/8', mac: '01:23:45:67:89:ab', uri: 'https://example.com/x', email: 'a@example.com', quantity: '10Gi'
    }
    for (const [format, value] of Object.entries(valid)) {
      if (value === '') continue
      assert.deepEqual(texts(spec({ v: { type: 'string', format } }), { spec: { v: value } }), [], format)
    }
    const invalidValues: Record<string, string> = { byte: 'a', date: '2024-13-01', duration: 'forever', hostname: '-x-', ipv4: '10.0.0.01', ipv6: '10.0.0.1', cidr: '10.0.0.0/33', mac: '01:23', email: 'nobody', quantity: '1.1.1' }
    for (const [format, value] of Object.entries(invalidValues)) {
      assert.equal(texts(spec({ v: { type: 'string', format } }), { spec: { v: value } }).length, 1, format)
    }
  })

  it('hands over the metadata of embedded resources for ObjectMeta validation', () => {
    const schema = spec({ templates: { type: 'array', items: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } })
    const metas = embeddedObjectMetas(schema, { metadata: { name: 'root' }, spec: { templates: [{ metadata: { name: 'Bad_Name' } }, { kind: 'X' }] } })
    assert.deepEqual(metas, [{ path: 'spec.templates[0].metadata', metadata: { name: 'Bad_Name' } }])
  })
})

describe('string length bounds', () => {
  it('count code points, as Go counts runes, whatever the string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.nat(40), fc.nat(40), (value, max, min) => {
      const runes = [...value].length
      const errors = validateCustomObject({ type: 'object', properties: { v: { type: 'string', maxLength: max, minLength: min } } }, { v: value }).map(e => e.type)
      assert.equal(errors.includes('TooLong'), runes > max)
      if (runes <= max) assert.equal(errors.includes('Invalid'), runes < min)
    }))
  })
})
