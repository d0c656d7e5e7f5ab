import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { compileRules, evaluateRule, RuntimeBudget, BUDGET_EXHAUSTED_MESSAGE } from '../../machinery/cel/rules.js'
import { PER_CALL_LIMIT } from '../../machinery/cel/cost.js'

const schema = { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } }, s: { type: 'string' } } }
const items = Array.from({ length: 200 }, (_, i) => `item-${i}`)

describe('CEL runtime cost', () => {
  it('stops a hostile nested comprehension with the reference\'s error', () => {
    const [r] = compileRules(schema, ['self.items.all(a, self.items.all(b, self.items.all(c, a + b + c != "")))'])
    const out = evaluateRule(r, { items }, undefined)
    assert.equal(out.ok, false)
    assert.equal((out as { error: string }).error, 'operation cancelled: actual cost limit exceeded')
    assert.ok((out as { cost: number }).cost > PER_CALL_LIMIT)
  })

  it('charges library functions by the size of their input', () => {
    const [r] = compileRules(schema, ['self.items.map(x, self.s.findAll("a")).size() > 0'])
    const out = evaluateRule(r, { items, s: 'a'.repeat(100_000) }, undefined)
    assert.equal((out as { error: string }).error, 'operation cancelled: actual cost limit exceeded')
  })

  it('charges concatenation by the size it builds', () => {
    const doubling = Array.from({ length: 40 }, () => '.map(x, x + x)').join('')
    const [r] = compileRules(schema, [`[self.s]${doubling}.size() > 0`])
    const out = evaluateRule(r, { items, s: 'ab' }, undefined)
    assert.equal((out as { error: string }).error, 'operation cancelled: actual cost limit exceeded')
  })

  it('lets a cheap rule through and counts its cost', () => {
    const [r] = compileRules(schema, ['self.items.all(a, a.startsWith("item-"))'])
    const out = evaluateRule(r, { items }, undefined)
    assert.equal(out.ok, true)
    assert.ok((out as { cost: number }).cost > 200 && (out as { cost: number }).cost < 10_000)
  })

  it('stops every rule of one object once the request budget is spent', () => {
    const [r] = compileRules(schema, ['self.items.all(a, self.items.all(b, a != b || a == b))'])
    const budget = new RuntimeBudget(400_000)
    assert.equal(evaluateRule(r, { items }, undefined, budget).ok, true)
    const second = evaluateRule(r, { items }, undefined, budget)
    assert.equal((second as { error: string }).error, BUDGET_EXHAUSTED_MESSAGE)
  })
})
