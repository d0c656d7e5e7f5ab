import { describe, it } from 'node:test'
import { assertAllTrue, assertEvalError } from './helpers.js'

describe('CEL lists library', () => {
  it('answers isSorted, sum, min, max, indexOf and lastIndexOf', () => assertAllTrue([
    '[1, 2, 2, 3].isSorted()', '!["b", "a"].isSorted()', '[].isSorted()',
    '[1, 2, 3].sum() == 6', '[1.5, 2.5].sum() == 4.0', '[3, 1, 2].min() == 1', '[3, 1, 2].max() == 3',
    '["b", "a", "c"].min() == "a"', '[1, 2, 1].indexOf(1) == 0', '[1, 2, 1].lastIndexOf(1) == 2', '[1].indexOf(5) == -1',
    'self.items.sum() == 6'
  ].map(e => e.replace('self.items', '[1, 2, 3]'))))
  it('fails min and max of an empty list', () => {
    assertEvalError('[].min() == 1', /min called on empty list/)
    assertEvalError('dyn([]).max() == 1', /max called on empty list/)
  })
})
