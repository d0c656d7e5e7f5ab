import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { celValidator, type CelValidator } from '../../machinery/cel/validator.js'
import { BUDGET_EXHAUSTED_MESSAGE, RuntimeBudget } from '../../machinery/cel/rules.js'

type Schema = Record<string, unknown>
const rules = (...r: Array<string | Schema>) => ({ 'x-kubernetes-validations': r.map((x) => typeof x === 'string' ? { rule: x } : x) })
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra })

function validator (schema: Schema): CelValidator {
  const v = celValidator(schema)
  assert.ok(v !== undefined)
  return v
}

describe('celValidator', () => {
  it('is undefined for a schema without rules', () => {
    assert.equal(celValidator(obj({ spec: obj({ a: { type: 'string' } }) })), undefined)
  })

  it('reports a failed rule at the node, the schema type as the value, the rule or message as the detail', () => {
    const v = validator(obj({
      spec: obj({ n: { type: 'integer', ...rules('self < 10', { rule: 'self > 0', message: '  must be positive ' }) } })
    }, rules("self.metadata.name.startsWith('web-')")))
    assert.deepEqual(v.validate({ metadata: { name: 'db' }, spec: { n: 12 } }), [
      { type: 'Invalid', field: '<nil>', value: 'object', detail: "failed rule: self.metadata.name.startsWith('web-')" },
      { type: 'Invalid', field: 'spec.n', value: 'integer', detail: 'failed rule: self < 10' }
    ])
    assert.deepEqual(v.validate({ metadata: { name: 'web-1' }, spec: { n: -1 } }), [
      { type: 'Invalid', field: 'spec.n', value: 'integer', detail: 'must be positive' }
    ])
  })

  it('sees apiVersion, kind and metadata.name at the root and at embedded resources', () => {
    const v = validator(obj({
      template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, ...rules('self.kind == "Pod"') }
    }, rules('self.apiVersion == "example.com/v1" && self.kind == "Widget"')))
    assert.deepEqual(v.validate({ apiVersion: 'example.com/v1', kind: 'Widget', template: { kind: 'Pod', apiVersion: 'v1' } }), [])
    assert.deepEqual(v.validate({ apiVersion: 'example.com/v2', kind: 'Widget', template: { kind: 'Service' } }).map((e) => e.field), ['<nil>', 'template'])
  })

  it('turns reason into the error type and places fieldPath below the node', () => {
    const v = validator(obj({
      spec: obj({ a: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } }, rules(
        { rule: 'self.a != "x"', reason: 'FieldValueForbidden', fieldPath: '.a' },
        { rule: 'self.a != "y"', reason: 'FieldValueRequired', message: 'a is required' },
        { rule: 'self.a != "z"', reason: 'FieldValueDuplicate' },
        { rule: 'self.a != "w"', reason: 'FieldValueInvalid', fieldPath: ".labels['app.kubernetes.io/name']" }
      ))
    }))
    assert.deepEqual(v.validate({ spec: { a: 'x' } }), [{ type: 'Forbidden', field: 'spec.a', detail: 'failed rule: self.a != "x"' }])
    assert.deepEqual(v.validate({ spec: { a: 'y' } }), [{ type: 'Required', field: 'spec', detail: 'a is required' }])
    assert.deepEqual(v.validate({ spec: { a: 'z' } }), [{ type: 'Duplicate', field: 'spec', value: 'object' }])
    assert.deepEqual(v.validate({ spec: { a: 'w' } }), [{ type: 'Invalid', field: 'spec.labels[app.kubernetes.io/name]', value: 'object', detail: 'failed rule: self.a != "w"' }])
  })

  it('words the detail from messageExpression, falling back to message when it fails or is empty', () => {
    const v = validator(obj({
      n: { type: 'integer', ...rules({ rule: 'self < 5', messageExpression: '"n is " + string(self) + ", above 4"', message: 'static' }) },
      m: { type: 'integer', ...rules({ rule: 'self < 5', messageExpression: '"  "', message: 'static m' }) },
      k: { type: 'integer', ...rules({ rule: 'self < 5', messageExpression: 'string(10 / (self - self))' }) }
    }))
    assert.deepEqual(v.validate({ n: 7, m: 7, k: 7 }).map((e) => e.detail), ['n is 7, above 4', 'static m', 'failed rule: self < 5'])
  })

  it('reports compile errors and runtime errors in the reference words', () => {
    const v = validator(obj({
      o: obj({ a: { type: 'string' } }, rules('self.a == "x"', 'self.nope == 1')),
      p: { 'x-kubernetes-int-or-string': true, ...rules('self + 1 > 2') }
    }))
    const errors = v.validate({ o: {}, p: 'ten' })
    assert.deepEqual(errors[0], { type: 'Invalid', field: 'o', value: 'object', detail: 'no such key: a evaluating rule: self.a == "x"' })
    assert.equal(errors[1].field, 'o')
    assert.match(errors[1].detail ?? '', /^rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'nope'/)
    const runtime = validator(obj({ n: { type: 'integer', ...rules('[1][self] == 1', '9223372036854775807 + self > 0', '1 % (self - self) == 0') } }))
    assert.deepEqual(runtime.validate({ n: 3 }).map((e) => e.detail), [
      'index out of bounds: 3 evaluating rule: [1][self] == 1',
      'integer overflow evaluating rule: 9223372036854775807 + self > 0',
      'modulus by zero evaluating rule: 1 % (self - self) == 0'
    ])
    // int-or-string has no type: the value shown is the empty type
    assert.equal(errors[2].value, '')
    assert.equal(errors[2].detail, "'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self + 1 > 2")
  })

  it('runs transition rules on update only, and optionalOldSelf rules on create too', () => {
    const v = validator(obj({
      n: { type: 'integer', ...rules({ rule: 'self >= oldSelf', message: 'may not decrease' }) },
      m: { type: 'integer', ...rules({ rule: 'oldSelf.hasValue() ? self >= oldSelf.value() : self == 0', optionalOldSelf: true, message: 'starts at 0' }) }
    }))
    assert.deepEqual(v.validate({ n: 3, m: 0 }), [])
    assert.deepEqual(v.validate({ n: 3, m: 2 }).map((e) => e.detail), ['starts at 0'])
    assert.deepEqual(v.validate({ n: 2, m: 1 }, { n: 3, m: 2 }).map((e) => [e.field, e.detail]), [['n', 'may not decrease'], ['m', 'starts at 0']])
    // a field newly set on update has no old value: the transition rule does not run
    assert.deepEqual(v.validate({ n: 2 }, {}), [])
  })

  it('correlates oldSelf through map-lists by key and through maps by key', () => {
    const immutable = { type: 'integer', ...rules({ rule: 'self == oldSelf', message: 'immutable' }) }
    const v = validator(obj({
      ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: obj({ name: { type: 'string' }, port: immutable }) },
      limits: { type: 'object', additionalProperties: immutable }
    }))
    const old = { ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }], limits: { a: 1, b: 2 } }
    // reordered, one added: each item meets its old self by name
    assert.deepEqual(v.validate({ ports: [{ name: 'https', port: 443 }, { name: 'grpc', port: 9 }, { name: 'http', port: 80 }], limits: { b: 2, a: 1, c: 3 } }, old), [])
    assert.deepEqual(v.validate({ ports: [{ name: 'https', port: 8443 }], limits: { a: 5 } }, old).map((e) => e.field), ['ports[0].port', 'limits[a]'])
  })

  it('does not correlate below atomic and set lists: their items never see oldSelf', () => {
    const item = { type: 'string', ...rules('self == oldSelf') }
    const v = validator(obj({
      atomic: { type: 'array', items: item },
      set: { type: 'array', 'x-kubernetes-list-type': 'set', items: item }
    }))
    assert.deepEqual(v.validate({ atomic: ['b'], set: ['d'] }, { atomic: ['a'], set: ['c'] }), [])
  })

  it('ratchets: an unchanged invalid value only warns, a changed one fails, transition rules always fail', () => {
    const v = validator(obj({
      spec: obj({
        name: { type: 'string', ...rules({ rule: 'self.size() <= 3', message: 'too long' }) },
        tags: { type: 'array', items: { type: 'string', ...rules({ rule: 'self != "bad"', message: 'bad tag' }) } },
        n: { type: 'integer', ...rules({ rule: 'self > oldSelf', message: 'must grow' }) }
      })
    }))
    const old = { spec: { name: 'longname', tags: ['bad', 'ok'], n: 1 } }
    const warnings: string[] = []
    assert.deepEqual(v.validate({ spec: { name: 'longname', tags: ['bad', 'ok'], n: 1 } }, old, undefined, warnings).map((e) => e.detail), ['must grow'])
    assert.deepEqual(warnings, ['spec.name: Invalid value: "string": too long', 'spec.tags[0]: Invalid value: "string": bad tag'])
    // a list without a list type correlates by index for ratcheting: the moved 'bad' is new
    assert.deepEqual(v.validate({ spec: { name: 'longername', tags: ['ok', 'bad'], n: 2 } }, old).map((e) => e.field), ['spec.name', 'spec.tags[1]'])
    // on create nothing ratchets
    assert.equal(v.validate(old).length, 3 - 1)
  })

  it('stops a hostile rule at the per-call limit, fast, with the reference message', () => {
    const v = validator(obj({
      list: { type: 'array', items: { type: 'string' }, ...rules('self.all(a, self.all(b, self.all(c, a + b + c != "zzz")))') },
      after: { type: 'string', ...rules('self == "never checked"') }
    }))
    const started = Date.now()
    const errors = v.validate({ list: Array.from({ length: 500 }, (_, i) => `item-${i}`), after: 'x' })
    assert.ok(Date.now() - started < 2000, 'the evaluation is cut off, not run to its end')
    assert.deepEqual(errors, [{
      type: 'Invalid',
      field: 'list',
      value: 'array',
      detail: "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(a, self.all(b, self.all(c, a + b + c != \"zzz\")))"
    }])
  })

  it('stops at a messageExpression over the per-call limit, in the reference words', () => {
    const messageExpression = 'string(self.map(a, self.map(b, self.map(c, a + b + c))).size())'
    const v = validator(obj({
      list: { type: 'array', items: { type: 'string' }, ...rules({ rule: 'self.size() < 3', messageExpression }) },
      z: { type: 'string', ...rules('self == "never checked"') }
    }))
    assert.deepEqual(v.validate({ list: Array.from({ length: 300 }, (_, i) => `${i}`), z: 'x' }), [{
      type: 'Invalid',
      field: 'list',
      value: 'array',
      detail: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(messageExpression)}`
    }])
  })

  it('shares one budget across the object and reports its exhaustion once', () => {
    const v = validator(obj({ items: { type: 'array', items: { type: 'string', ...rules('self.size() < 1000') } } }))
    const errors = v.validate({ items: Array.from({ length: 100 }, () => 'x') }, undefined, new RuntimeBudget(50))
    assert.deepEqual(errors, [{ type: 'Invalid', field: errors[0].field, value: 'string', detail: BUDGET_EXHAUSTED_MESSAGE }])
    assert.match(errors[0].field, /^items\[\d+\]$/)
    const budget = new RuntimeBudget()
    assert.deepEqual(v.validate({ items: ['a', 'b'] }, undefined, budget), [])
    assert.ok(budget.remaining < 10_000_000, 'the evaluations are charged to the budget passed in')
  })

  it('runs the rules of allOf entries against the node they sit on', () => {
    const v = validator(obj({
      spec: obj({ a: { type: 'integer' } }, {
        ...rules('self.a >= 0'),
        allOf: [{ ...rules({ rule: 'self.a < 10', message: 'a below 10' }), properties: { a: rules({ rule: 'self != 5', message: 'not 5' }) } }]
      })
    }))
    assert.deepEqual(v.validate({ spec: { a: 12 } }), [{ type: 'Invalid', field: 'spec', value: 'object', detail: 'a below 10' }])
    assert.deepEqual(v.validate({ spec: { a: 5 } }), [{ type: 'Invalid', field: 'spec.a', value: 'integer', detail: 'not 5' }])
    // as the reference: a schema whose only rules are inside allOf gets no validator
    assert.equal(celValidator(obj({ spec: obj({ a: { type: 'integer' } }, { allOf: [rules('self.a < 10')] }) })), undefined)
  })

  it('never throws and returns field errors on arbitrary JSON', () => {
    const v = validator(obj({
      spec: obj({
        n: { type: 'integer', ...rules('self >= oldSelf', 'self < 100') },
        s: { type: 'string', maxLength: 10, ...rules({ rule: 'self.startsWith("a")', messageExpression: '"got " + self' }) },
        m: { type: 'object', additionalProperties: { type: 'integer', ...rules('self > 0') } },
        l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: obj({ k: { type: 'string' }, v: { 'x-kubernetes-int-or-string': true, ...rules('self != 0') } }) }
      }, rules('has(self.n) || has(self.s)'))
    }))
    fc.assert(fc.property(fc.jsonValue(), fc.jsonValue(), fc.option(fc.constantFrom('n', 's', 'm', 'l')), (a, b, key) => {
      const wrap = (x: unknown) => key === null ? x : { spec: { [key]: x } }
      const errors = v.validate(wrap(a), wrap(b))
      return Array.isArray(errors) && errors.every((e) => typeof e.field === 'string' && typeof e.type === 'string')
    }), { numRuns: 300 })
  })
})
