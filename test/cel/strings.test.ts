import { describe, it } from 'node:test'
import { assertAllTrue, assertEvalError } from './helpers.js'

describe('CEL strings extension', () => {
  it('answers charAt, indexOf, lowerAscii, upperAscii, replace, split, substring, trim and join', () => assertAllTrue([
    '"héllo".charAt(1) == "é"', '"abc".charAt(3) == ""', '"abcabc".indexOf("c") == 2', '"abcabc".lastIndexOf("c") == 5',
    '"AbC".lowerAscii() == "abc"', '"AbC".upperAscii() == "ABC"', '"a.b.c".replace(".", "-") == "a-b-c"',
    '"a.b.c".replace(".", "-", 1) == "a-b.c"', '"a,b".split(",") == ["a", "b"]', '"abcdef".substring(2, 4) == "cd"',
    '"  x ".trim() == "x"', '["a", "b"].join("-") == "a-b"', '["a", "b"].join() == "ab"'
  ]))
  it('fails charAt out of range', () => assertEvalError('"abc".charAt(5) == ""', /index out of range/))
})
