import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { costErrorMessage, crdRuleProblems } from '../../machinery/cel/crd-rules.js'

type Schema = Record<string, unknown>
const BASE = 'spec.validation.openAPIV3Schema'
const SPEC = `${BASE}.properties[spec]`
const rules = (...r: Array<string | Schema>) => ({ 'x-kubernetes-validations': r.map((x) => typeof x === 'string' ? { rule: x } : x) })
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra })
/** A CRD schema whose spec carries `spec`'s properties and rules. */
const crd = (properties: Record<string, Schema>, ...r: Array<string | Schema>): Schema => obj({ spec: obj(properties, rules(...r)) })
const problems = (schema: Schema) => crdRuleProblems(schema, BASE)

describe('crdRuleProblems: the entries', () => {
  it('accepts rules that compile, with their message, reason and fieldPath', () => {
    assert.deepEqual(problems(crd({ a: { type: 'integer' }, m: { type: 'object', additionalProperties: { type: 'string' } } },
      { rule: 'self.a > 1', message: 'a above 1', reason: 'FieldValueForbidden', fieldPath: '.a' },
      { rule: 'self.a < 9', messageExpression: 'self.a > 100 ? "a is far too large" : "a is too large"', fieldPath: ".m['x.y']" })), [])
  })

  it('refuses empty rules and messages, line breaks, unknown reasons and invalid field paths', () => {
    const errors = problems(crd({ a: { type: 'integer' } },
      { rule: '  ' },
      { rule: 'self.a > 1', message: ' ' },
      { rule: 'self.a > 1\n&& self.a < 3' },
      { rule: 'self.a > 1', messageExpression: ' ', reason: 'Nope', fieldPath: '.b' }))
    const at = (i: number) => `${SPEC}.x-kubernetes-validations[${i}]`
    assert.deepEqual(errors, [
      { type: 'Required', field: `${at(0)}.rule`, detail: 'rule is not specified' },
      { type: 'Invalid', field: `${at(1)}.message`, value: ' ', detail: 'message must be non-empty if specified' },
      { type: 'Required', field: `${at(2)}.message`, detail: 'message must be specified if rule contains line breaks' },
      { type: 'Required', field: `${at(3)}.messageExpression`, detail: 'messageExpression must be non-empty if specified' },
      { type: 'NotSupported', field: `${at(3)}.reason`, value: 'Nope', supported: ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'] },
      { type: 'Invalid', field: `${at(3)}.fieldPath`, value: '.b', detail: 'fieldPath must be a valid path' }
    ])
  })

  it('skips compiling where an entry is wrong, as the reference', () => {
    const errors = problems(crd({ a: { type: 'integer' } }, { rule: 'self.nope', reason: 'Nope' }))
    assert.deepEqual(errors.map((e) => e.type), ['NotSupported'])
  })
})

describe('crdRuleProblems: compilation', () => {
  it('compiles no rule at or above a node where the caller found schema errors', () => {
    const schema = crd({ a: { type: 'integer', ...rules('self.nope') } }, 'self.b > 1', { rule: 'self.a > 1', reason: 'Nope' })
    const fields = crdRuleProblems(schema, BASE, { schemaErrorFields: [`${SPEC}.properties[a].type`] }).map((e) => e.field)
    assert.deepEqual(fields, [`${SPEC}.x-kubernetes-validations[1].reason`])
    // an error elsewhere (a sibling whose name extends this one) does not stop them
    const sibling = crdRuleProblems(schema, BASE, { schemaErrorFields: [`${SPEC}.properties[ab].type`] }).map((e) => e.field)
    assert.deepEqual(sibling, [`${SPEC}.properties[a].x-kubernetes-validations[0].rule`, `${SPEC}.x-kubernetes-validations[1].reason`])
  })

  it('reports compile errors at the rule with the entry as the value', () => {
    const entry = { rule: 'self.b > 1' }
    assert.deepEqual(problems(obj({ spec: obj({ a: { type: 'integer' } }, { 'x-kubernetes-validations': [entry] }) })), [{
      type: 'Invalid',
      field: `${SPEC}.x-kubernetes-validations[0].rule`,
      value: entry,
      detail: "compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b > 1\n | ....^"
    }])
    const notBool = problems(crd({ a: { type: 'integer' } }, 'self.a'))
    assert.equal(notBool[0].detail, 'cel expression must evaluate to a bool')
  })

  it('reports messageExpression errors at the messageExpression', () => {
    const errors = problems(crd({ a: { type: 'integer' } },
      { rule: 'self.a > 1', messageExpression: 'self.a' },
      { rule: 'self.a > 1', messageExpression: 'self.nope' }))
    assert.deepEqual(errors.map((e) => [e.field, e.detail?.split('\n')[0]]), [
      [`${SPEC}.x-kubernetes-validations[0].messageExpression`, 'messageExpression must evaluate to a string'],
      [`${SPEC}.x-kubernetes-validations[1].messageExpression`, "messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'"]
    ])
  })

  it('places errors under the base path it is given, as for per-version schemas', () => {
    const errors = crdRuleProblems(crd({ a: { type: 'integer' } }, 'self.b > 1'), 'spec.versions[1].schema.openAPIV3Schema')
    assert.deepEqual(errors.map((e) => e.field), ['spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule'])
  })

  it('refuses rules on a node the CEL model has no type for', () => {
    assert.deepEqual(problems(obj({ free: rules('self == 1') })).map((e) => [e.field, e.detail]), [[
      `${BASE}.properties[free].x-kubernetes-validations`,
      'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations'
    ]])
  })

  it('refuses optionalOldSelf on a rule that does not read oldSelf', () => {
    assert.deepEqual(problems(crd({ a: { type: 'integer' } }, { rule: 'self.a > 1', optionalOldSelf: false })), [{
      type: 'Invalid', field: `${SPEC}.x-kubernetes-validations[0].optionalOldSelf`, value: false, detail: 'may not be set if oldSelf is not used in rule'
    }])
    assert.deepEqual(problems(crd({ a: { type: 'integer' } }, { rule: '!oldSelf.hasValue() || self.a >= oldSelf.value().a', optionalOldSelf: true })), [])
  })
})

describe('crdRuleProblems: transition rules', () => {
  const immutable = { type: 'string', maxLength: 10, ...rules('self == oldSelf') }

  it('allows oldSelf under objects, maps and map-lists', () => {
    assert.deepEqual(problems(crd({
      a: immutable,
      m: { type: 'object', maxProperties: 10, additionalProperties: immutable },
      l: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: obj({ k: { type: 'string', maxLength: 10 }, v: immutable }, { required: ['k'] }) }
    }, 'self.a == oldSelf.a')), [])
  })

  it('refuses oldSelf below atomic and set lists, naming the highest list', () => {
    for (const listType of [undefined, 'atomic', 'set']) {
      const errors = problems(crd({
        l: { type: 'array', maxItems: 10, ...(listType === undefined ? {} : { 'x-kubernetes-list-type': listType }), items: { type: 'array', maxItems: 10, items: immutable } }
      }))
      assert.deepEqual(errors, [{
        type: 'Invalid',
        field: `${SPEC}.properties[l].items.items.x-kubernetes-validations[0].rule`,
        value: 'self == oldSelf',
        detail: `oldSelf cannot be used on the uncorrelatable portion of the schema within ${SPEC}.properties[l]`
      }], String(listType))
    }
  })
})

describe('crdRuleProblems: estimated cost', () => {
  const perRule = () => ({
    type: 'Forbidden', field: `${SPEC}.x-kubernetes-validations[0].rule`, detail: costErrorMessage('estimated rule cost', 1e12, 1e7)
  })

  it('words the factor as the reference prints it', () => {
    assert.match(costErrorMessage('estimated rule cost', 10_485_760, 10_000_000), /exceeds budget by factor of 1\.048576x \(try simplifying the rule/)
    assert.match(costErrorMessage('estimated rule cost', 25_000_000, 10_000_000), /by factor of 2\.5x /)
    assert.match(costErrorMessage('estimated rule cost', 2e9, 10_000_000), /by factor of more than 100x /)
  })

  const refused: Array<[string, Record<string, Schema>, string]> = [
    ['an unbounded list iterated inside another', { a: { type: 'array', items: { type: 'array', items: { type: 'string' } } } }, 'self.a.all(x, x.all(y, y != "z"))'],
    ['a quadratic walk over one unbounded list', { a: { type: 'array', items: { type: 'string' } } }, 'self.a.all(x, self.a.exists_one(y, x == y))'],
    ['matches() over unbounded strings of an unbounded list', { a: { type: 'array', items: { type: 'string' } } }, 'self.a.all(x, x.matches("^[a-z]+$"))'],
    ['list equality for every entry of an unbounded map', { m: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } }, 'self.m.all(k, !(k in oldSelf.m) || self.m[k] == oldSelf.m[k])'],
    ['a regex over every value of an unbounded map', { m: { type: 'object', additionalProperties: { type: 'string' } } }, 'self.m.all(k, self.m[k].matches("^a+$"))']
  ]
  for (const [name, properties, rule] of refused) {
    it(`refuses ${name}`, () => {
      const errors = problems(crd(properties, rule))
      assert.deepEqual(errors[0], perRule())
      assert.equal(errors.at(-1)?.field, BASE)
    })
  }

  const accepted: Array<[string, Record<string, Schema>, string]> = [
    ['the same nested walk once both lists are bounded', { a: { type: 'array', maxItems: 20, items: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 64 } } } }, 'self.a.all(x, x.all(y, y != "z"))'],
    ['matches() over bounded strings of a bounded list', { a: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 253 } } }, 'self.a.all(x, x.matches("^[a-z]+$"))'],
    ['matches() over one unbounded string', { s: { type: 'string' } }, 'self.s.matches("^[a-z]+$")'],
    ['one unbounded list compared with its old value (a tenth of a unit per item)', { a: { type: 'array', items: { type: 'string' } } }, 'self.a == oldSelf.a'],
    ['a regex over every value of a bounded map', { m: { type: 'object', maxProperties: 64, additionalProperties: { type: 'string', maxLength: 63 } } }, 'self.m.all(k, self.m[k].matches("^a+$"))'],
    ['string enums bounded by their longest value', { a: { type: 'array', maxItems: 1000, items: { type: 'string', enum: ['Always', 'Never'] } } }, 'self.a.all(x, self.a.exists_one(y, x == y))']
  ]
  for (const [name, properties, rule] of accepted) {
    it(`accepts ${name}`, () => assert.deepEqual(problems(crd(properties, rule)), []))
  }

  it('holds a messageExpression to the per-expression limit, without the cardinality', () => {
    const list = { type: 'array', items: { type: 'string' } }
    const errors = problems(crd({ a: list }, { rule: 'self.a.size() < 10', messageExpression: 'self.a.filter(x, self.a.exists(y, y == x)).join(",")' }))
    assert.equal(errors[0].field, `${SPEC}.x-kubernetes-validations[0].messageExpression`)
    assert.equal(errors[0].type, 'Forbidden')
    assert.match(errors[0].detail ?? '', /^estimated messageExpression cost exceeds budget by factor of more than 100x/)
    assert.deepEqual(problems(crd({ a: { ...list, maxItems: 10, items: { type: 'string', maxLength: 10 } } },
      { rule: 'self.a.size() < 10', messageExpression: 'self.a.filter(x, self.a.exists(y, y == x)).join(",")' })), [])
  })

  // The largest maxItems a 1.36 API server accepts for `self.all(x, x.contains('gpu'))` on a list of
  // strings, by the items' maxLength (measured against the reference's validator).
  const measured: Array<[number, number]> = [[16, 909_090], [63, 333_333], [253, 94_339], [1024, 24_154]]
  for (const [maxLength, maxItems] of measured) {
    it(`lands on the reference's limit for contains() over ${maxItems} strings of maxLength ${maxLength}`, () => {
      const tags = (n: number): Schema => obj({ tags: { type: 'array', maxItems: n, items: { type: 'string', maxLength }, ...rules("self.all(x, x.contains('gpu'))") } })
      assert.deepEqual(problems(tags(maxItems)), [])
      assert.equal(problems(tags(maxItems + 1))[0]?.field, `${BASE}.properties[tags].x-kubernetes-validations[0].rule`)
    })
  }

  it('refuses a messageExpression concatenating string(int), whose size nothing bounds (measured)', () => {
    const errors = problems(crd({ min: { type: 'integer' }, max: { type: 'integer' } },
      { rule: 'self.min <= self.max', messageExpression: "'min (' + string(self.min) + ') above max (' + string(self.max) + ')'" }))
    const at = `${SPEC}.x-kubernetes-validations[0].messageExpression`
    assert.deepEqual(errors.map((e) => [e.field, e.detail?.split(' (try')[0]]), [
      [at, 'estimated messageExpression cost exceeds budget by factor of more than 100x'],
      [at, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'],
      [BASE, 'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x']
    ])
  })

  it("gives the reference's factor for a measured refusal (5.4x)", () => {
    const text = { type: 'string', maxLength: 4096 }
    const testCase = obj({ message: text, expect: obj({ contains: text, equals: text }) },
      rules('(!has(self.expect.contains) || !self.message.contains(self.expect.contains)) && (!has(self.expect.equals) || self.message != self.expect.equals)'))
    const errors = problems(crd({ cases: { type: 'array', maxItems: 20, items: testCase } }))
    assert.deepEqual(errors.map((e) => [e.field, e.detail?.split(' (')[0]]), [
      [`${SPEC}.properties[cases].items.x-kubernetes-validations[0].rule`, 'estimated rule cost exceeds budget by factor of 5.4x']
    ])
  })

  it('multiplies by how often the node occurs: a rule on the items of an unbounded list', () => {
    const items = (rule: string): Schema => ({ type: 'array', items: obj({ s: { type: 'string' } }, rules(rule)) })
    // cheap per item, and as many items as fit in a request still stay under the limit
    assert.deepEqual(problems(obj({ l: items('has(self.s)') })), [])
    const errors = problems(obj({ l: items('self.s.matches("^[a-z]+$")') }))
    assert.equal(errors[0].field, `${BASE}.properties[l].items.x-kubernetes-validations[0].rule`)
    assert.match(errors[0].detail ?? '', /^estimated rule cost exceeds budget by factor of more than 100x/)
    // bounded by maxItems above, the same rule is accepted
    assert.deepEqual(problems(obj({ l: { type: 'array', maxItems: 10, items: obj({ s: { type: 'string', maxLength: 100 } }, rules('self.s.matches("^[a-z]+$")')) } })), [])
  })

  it('refuses a schema whose rules together exceed the CRD limit, naming the four most expensive', () => {
    // each rule: about 1,200 per item × 8,000 items, under the per-rule limit; fourteen of them are not
    const list = { type: 'array', maxItems: 8_000, items: { type: 'string', maxLength: 1000 } }
    const errors = problems(crd({ a: list }, ...Array.from({ length: 14 }, (_, i) => `self.a.all(x, x.matches("^[a-z]${i}$"))`)))
    assert.ok(errors.every((e) => e.type === 'Forbidden'))
    assert.equal(errors.length, 5)
    for (const e of errors.slice(0, 4)) {
      assert.match(e.field, /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[\d+\]\.rule$/)
      assert.equal(e.detail, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')
    }
    assert.deepEqual(errors[4].field, BASE)
    assert.match(errors[4].detail ?? '', /^x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1\.\d{6}x/)
  })
})

describe('crdRuleProblems: any input', () => {
  it('never throws on arbitrary schema-shaped JSON', () => {
    const rule = fc.record({ rule: fc.constantFrom('self == oldSelf', 'self.size() > 0', 'has(self.a)', '', 'self.', 'self.all(x, x == x)'), reason: fc.option(fc.string(), { nil: undefined }), fieldPath: fc.option(fc.constantFrom('.a', '.a.b', "['a']", 'a', '.'), { nil: undefined }) })
    const schema = fc.letrec((tie) => ({
      node: fc.record({
        type: fc.constantFrom('object', 'array', 'string', 'integer', 'boolean', 'number', 'bogus'),
        properties: fc.option(fc.dictionary(fc.constantFrom('a', 'b', 'x-y', 'if'), tie('node')), { nil: undefined }),
        items: fc.option(tie('node'), { nil: undefined }),
        additionalProperties: fc.option(fc.oneof(fc.boolean(), tie('node')), { nil: undefined }),
        maxItems: fc.option(fc.integer({ min: -1, max: 100 }), { nil: undefined }),
        maxLength: fc.option(fc.integer({ min: -1, max: 100 }), { nil: undefined }),
        'x-kubernetes-list-type': fc.option(fc.constantFrom('map', 'set', 'atomic'), { nil: undefined }),
        'x-kubernetes-validations': fc.option(fc.array(fc.oneof(rule, fc.jsonValue()), { maxLength: 2 }), { nil: undefined })
      }, { requiredKeys: ['type'] })
    })).node
    fc.assert(fc.property(schema, (s) => Array.isArray(crdRuleProblems(s as Schema, BASE))), { numRuns: 150 })
  })
})
