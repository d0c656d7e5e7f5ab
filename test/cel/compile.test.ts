import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { compileRules, evaluateMessage, evaluateRule } from '../../machinery/cel/rules.js'
import type { StructuralSchema } from '../../machinery/cel/schema.js'

const schema: StructuralSchema = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    maxReplicas: { type: 'integer' },
    name: { type: 'string' },
    ratio: { type: 'number' },
    port: { 'x-kubernetes-int-or-string': true },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    containers: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'string' } } } },
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    'x-dashed': { type: 'string' },
    namespace: { type: 'string' }
  }
}

function one (rule: string, s: StructuralSchema = schema) {
  return compileRules(s, [rule])[0]
}

describe('CEL rule compilation', () => {
  it('compiles a rule over typed fields and evaluates it', () => {
    const r = one('self.replicas <= self.maxReplicas && self.name.startsWith("web-")')
    assert.equal(r.error, undefined)
    assert.equal(r.transitionRule, false)
    assert.deepEqual(evaluateRule(r, { replicas: 3, maxReplicas: 5, name: 'web-1' }, undefined), { ok: true, value: true, cost: 10 })
    const no = evaluateRule(r, { replicas: 6, maxReplicas: 5, name: 'web-1' }, undefined)
    assert.equal(no.ok === true && no.value, false)
  })

  const errors: Array<{ name: string, rule: string, want: string }> = [
    { name: 'an undefined field', rule: 'self.nope > 1', want: "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 1\n | ....^" },
    { name: 'an undeclared variable', rule: 'other == 1', want: "compilation failed: ERROR: <input>:1:1: undeclared reference to 'other' (in container '')\n | other == 1\n | ^" },
    { name: 'a type mismatch', rule: 'self.replicas + self.name == 1', want: "compilation failed: ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'" },
    { name: 'a syntax error', rule: 'self.replicas >', want: 'compilation failed: ERROR: <input>:1:16: ' },
    { name: 'a rule that is not a bool', rule: 'self.replicas', want: 'cel expression must evaluate to a bool' },
    { name: 'a mixed list literal', rule: '[1, "a"].size() == 2', want: 'compilation failed: ERROR: <input>:1:' }
  ]
  for (const c of errors) {
    it(`refuses ${c.name} with the reference's message shape`, () => {
      const r = one(c.rule)
      assert.equal(r.program, undefined)
      assert.ok(r.error?.startsWith(c.want), `${r.error} should start with ${c.want}`)
    })
  }

  it('reports the line and column of an error on a later line', () => {
    assert.match(one('self.replicas > 1 &&\n  self.bad').error ?? '', /^compilation failed: ERROR: <input>:2:7: undefined field 'bad'\n \|   self\.bad\n \| \.\.\.\.\.\.\^/)
  })

  it('types maps from additionalProperties, lists of objects, int-or-string and preserved fields as dyn', () => {
    const r = one('self.labels.all(k, self.labels[k].size() < 10) && self.containers.all(c, c.image.contains(":")) && (self.port == 80 || self.port == "http") && self.extra.anything.deeper == 1 && self.ratio > 0.5')
    assert.equal(r.error, undefined)
    const obj = { labels: { a: 'b' }, containers: [{ name: 'c', image: 'nginx:1' }], port: 'http', extra: { anything: { deeper: 1 } }, ratio: 0.7 }
    assert.equal((evaluateRule(r, obj, undefined) as { value: unknown }).value, true)
    assert.equal(one('self.containers[0].nope == ""').error?.includes("undefined field 'nope'"), true)
  })

  it('types date-time strings as timestamps and duration strings as durations', () => {
    const [r] = compileRules({ type: 'object', properties: { at: { type: 'string', format: 'date-time' }, every: { type: 'string', format: 'duration' } } },
      ['self.at > timestamp("2024-01-01T00:00:00Z") && self.every == duration("90m") && self.every.getMinutes() == 90'])
    assert.equal(r.error, undefined)
    assert.equal((evaluateRule(r, { at: '2025-06-01T10:00:00Z', every: '1h30m' }, undefined) as { value: unknown }).value, true)
  })

  it('escapes property names as the reference does', () => {
    const r = one('self.x__dash__dashed == "a" && self.__namespace__ == "b"')
    assert.equal(r.error, undefined)
    assert.equal((evaluateRule(r, { 'x-dashed': 'a', namespace: 'b' }, undefined) as { value: unknown }).value, true)
  })

  it('sees absent fields through has() and fails on reading them', () => {
    const r = one('has(self.name) ? self.name != "" : true')
    assert.equal((evaluateRule(r, {}, undefined) as { value: unknown }).value, true)
    const read = evaluateRule(one('self.name == "x"'), {}, undefined)
    assert.equal(read.ok, false)
  })

  it('adds apiVersion, kind and metadata.name at a resource root', () => {
    const [r] = compileRules({ type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'integer' } } } } }, ['self.metadata.name.startsWith("x") && self.kind == "Foo" && self.spec.a == 1'], { resourceRoot: true })
    assert.equal(r.error, undefined)
    assert.equal((evaluateRule(r, { apiVersion: 'v1', kind: 'Foo', metadata: { name: 'xy' }, spec: { a: 1 } }, undefined) as { value: unknown }).value, true)
  })
})

describe('CEL transition rules', () => {
  it('marks a rule reading oldSelf as a transition rule and skips it without an old object', () => {
    const r = one('self.replicas >= oldSelf.replicas')
    assert.equal(r.transitionRule, true)
    assert.deepEqual(evaluateRule(r, { replicas: 1 }, undefined), { ok: 'skipped' })
  })

  it('compares the new value with the old one', () => {
    const r = one('self.replicas >= oldSelf.replicas')
    assert.equal((evaluateRule(r, { replicas: 3 }, { replicas: 2 }) as { value: unknown }).value, true)
    assert.equal((evaluateRule(r, { replicas: 1 }, { replicas: 2 }) as { value: unknown }).value, false)
  })

  it('holds an object immutable with self == oldSelf (deep equality of typed objects)', () => {
    const r = one('self == oldSelf')
    const obj = { name: 'a', containers: [{ name: 'c', image: 'i' }], labels: { x: 'y' } }
    assert.equal((evaluateRule(r, obj, structuredClone(obj)) as { value: unknown }).value, true)
    assert.equal((evaluateRule(r, obj, { ...obj, labels: { x: 'z' } }) as { value: unknown }).value, false)
    assert.equal((evaluateRule(one('self.containers != oldSelf.containers'), obj, { ...obj, containers: [] }) as { value: unknown }).value, true)
  })
})

describe('CEL optionalOldSelf and messageExpression', () => {
  it('runs an optionalOldSelf rule on create with oldSelf as optional.none()', () => {
    const [r] = compileRules(schema, [{ rule: 'oldSelf.hasValue() ? self.replicas >= oldSelf.value().replicas : self.replicas == 1', optionalOldSelf: true }])
    assert.equal(r.error, undefined)
    assert.equal((evaluateRule(r, { replicas: 1 }, undefined) as { value: unknown }).value, true)
    assert.equal((evaluateRule(r, { replicas: 1 }, { replicas: 2 }) as { value: unknown }).value, false)
  })

  it('compiles a messageExpression and evaluates it for the message', () => {
    const [r] = compileRules(schema, [{ rule: 'self.replicas < 5', messageExpression: '"replicas " + string(self.replicas) + " too many"' }])
    assert.equal(evaluateMessage(r, { replicas: 7 }, undefined), 'replicas 7 too many')
  })

  it('refuses a messageExpression that is not a string or does not compile', () => {
    const [a, b] = compileRules(schema, [{ rule: 'true', messageExpression: 'self.replicas' }, { rule: 'true', messageExpression: 'self.nope' }])
    assert.equal(a.messageError, 'messageExpression must evaluate to a string')
    assert.match(b.messageError ?? '', /^messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'/)
  })
})
