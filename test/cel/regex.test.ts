import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertAllTrue, assertEvalError, celEval } from './helpers.js'

describe('CEL regex library', () => {
  it('answers find, findAll and matches', () => assertAllTrue([
    '"abc 123".find("[0-9]+") == "123"', '"abc".find("[0-9]+") == ""',
    '"123 abc 456".findAll("[0-9]+") == ["123", "456"]', '"123 abc 456".findAll("[0-9]+", 1) == ["123"]',
    '"web-1".matches("^web-[0-9]$")', 'matches("web-1", "web")', '!"x".matches("^y")'
  ]))
  it('matches in linear time a pattern that backtracks catastrophically in JavaScript', () => {
    // (a+)+$ against a long run of a's then a mismatch takes exponential time in a backtracking engine
    assert.equal(celEval('self.s.matches("^(a+)+$")', { s: 'a'.repeat(5000) + 'b' }), false)
  })
  it('uses RE2 inside macros too', () => {
    assert.equal(celEval('self.items.exists(i, i.matches("^(a+)+$"))', { items: ['b', 'a'.repeat(5000) + 'b'] }), false)
  })
  it('refuses a pattern RE2 does not accept', () => assertEvalError('"a".matches("(?<=a)b")', /error parsing regexp/))
})
