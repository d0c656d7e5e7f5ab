import { describe, it } from 'node:test'
import { assertAllTrue, assertEvalError } from './helpers.js'

describe('CEL quantity library', () => {
  it('compares, adds and converts quantities', () => assertAllTrue([
    'isQuantity("1.5Gi")', '!isQuantity("1.5 Gi")', 'quantity("1Gi").isGreaterThan(quantity("1G"))',
    'quantity("500m").isLessThan(quantity("1"))', 'quantity("1k").compareTo(quantity("1000")) == 0',
    'quantity("1k") == quantity("1000")', 'quantity("1Gi").add(quantity("1Gi")) == quantity("2Gi")',
    'quantity("1").add(2) == quantity("3")', 'quantity("3").sub(quantity("500m")) == quantity("2500m")',
    'quantity("5").sub(1).asInteger() == 4', 'quantity("1Ki").asInteger() == 1024', 'quantity("1500m").asApproximateFloat() == 1.5',
    'quantity("-3").sign() == -1', 'quantity("0").sign() == 0', 'quantity("2").sign() == 1',
    'quantity("1").isInteger()', '!quantity("500m").isInteger()'
  ]))
  it('fails asInteger of a fraction and quantity() of a malformed one', () => {
    assertEvalError('quantity("500m").asInteger() == 0', /cannot convert value to integer/)
    assertEvalError('quantity("1.5 Gi").sign() == 1', /quantities must match/)
  })
})
