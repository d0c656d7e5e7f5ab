import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertAllTrue, celEval } from './helpers.js'

describe('CEL format library', () => {
  it('validates against the named formats', () => assertAllTrue([
    '!format.dns1123Label().validate("my-name").hasValue()', 'format.dns1123Label().validate("My_Name").hasValue()',
    '!format.dns1123Subdomain().validate("a.b.c").hasValue()', 'format.dns1035Label().validate("1abc").hasValue()',
    '!format.dns1123LabelPrefix().validate("abc-").hasValue()', '!format.qualifiedName().validate("example.com/name").hasValue()',
    '!format.labelValue().validate("").hasValue()', '!format.uri().validate("https://a.b").hasValue()',
    '!format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue()', 'format.uuid().validate("x").hasValue()',
    '!format.byte().validate("YWJj").hasValue()', '!format.date().validate("2024-02-29").hasValue()', 'format.date().validate("2023-02-29").hasValue()',
    '!format.datetime().validate("2024-01-01T10:00:00Z").hasValue()',
    'format.named("dns1123Label").hasValue()', '!format.named("nope").hasValue()',
    '!format.named("dns1123Label").value().validate("ok").hasValue()'
  ]))
  it('lists the problems of an invalid value', () => {
    const problems = celEval('format.dns1123Label().validate("Bad").value()') as string[]
    assert.match(problems[0], /a lowercase RFC 1123 label must consist of/)
  })
})
