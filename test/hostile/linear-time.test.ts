// Every parser that reads client input runs in time linear in it: the worst input known for
// each, at n and at 10n, in one run (test/hostile/linear-time.ts).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Type } from '@sinclair/typebox'
import { assertLinear } from './linear-time.js'
import { certificateProblem, parseCertificateRequest, pemBlocks } from '../../resources/certificate-request.js'
import { addQuantities, canonicalQuantity, compareQuantities, decodeQuantity, subtractQuantities } from '../../resources/quantity.js'
import { parseFieldSelector, parseLabelSelector } from '../../machinery/selectors.js'
import { parseRequestInfo } from '../../plugins/request-info.js'
import { translateFieldSelector } from '../../plugins/rest/index.js'
import { applyPatch } from '../../machinery/patch.js'
import { parseCidr } from '../../resources/value-ranges.js'
import { validateDomainPrefixedPath } from '../../resources/ingress-rules.js'
import { isBase64 } from '../../resources/validation.js'
import { labelValueProblems, qualifiedNameProblems, dnsSubdomainProblems } from '../../resources/validation.js'

const zeros = (n: number): string => '0'.repeat(n)

describe('PEM', () => {
  const inputs: Record<string, (n: number) => string> = {
    'unterminated BEGIN markers': n => '-----BEGIN '.repeat(n),
    'BEGIN lines without an END': n => '-----BEGIN CERTIFICATE REQUEST-----\n'.repeat(n),
    'BEGIN lines of distinct types': n => Array.from({ length: n }, (_, i) => `-----BEGIN T${i}-----\n`).join(''),
    'END markers without a BEGIN': n => '-----END X-----\n'.repeat(n),
    'a long type line': n => `-----BEGIN ${'A-'.repeat(n)}B`,
    'one block with a long body': n => `-----BEGIN X-----\n${'QUFB\n'.repeat(n)}-----END X-----\n`
  }
  for (const [what, input] of Object.entries(inputs)) {
    it(`pemBlocks: ${what}`, () => assertLinear(what, input, pemBlocks))
  }
  it('parseCertificateRequest and certificateProblem', () => {
    assertLinear('parseCertificateRequest', n => '-----BEGIN '.repeat(n), parseCertificateRequest)
    assertLinear('certificateProblem', n => '-----BEGIN CERTIFICATE-----\n'.repeat(n), certificateProblem)
  })
})

describe('quantities', () => {
  const inputs: Record<string, (n: number) => string> = {
    'trailing zeros': n => '1' + zeros(n),
    'nines': n => '9'.repeat(n),
    'binary digits past the cap': n => '7'.repeat(n) + 'Ki',
    'a binary fraction': n => '1.' + zeros(n) + '1Mi',
    'a fraction below a nano': n => '0.' + zeros(n) + '1',
    'digits with an exponent': n => '1' + zeros(n) + 'e-' + String(n),
    'a decimal past E': n => '1' + zeros(n) + 'E',
    'a long exponent suffix': n => '1e' + zeros(n) + '1'
  }
  for (const [what, input] of Object.entries(inputs)) {
    it(`canonical form: ${what}`, () => assertLinear(what, input, canonicalQuantity))
  }
  it('arithmetic and comparison', () => {
    assertLinear('add', n => '1' + zeros(n), a => addQuantities(a, '1n'))
    assertLinear('subtract', n => '1' + zeros(n), a => subtractQuantities('1n', a))
    assertLinear('compare', n => '1' + zeros(n) + '1', a => compareQuantities(a, a.slice(0, -1) + '2'))
  })
  it('JSON decoding with surrounding space', () => {
    assertLinear('spaces', n => ' '.repeat(n) + '1' + ' '.repeat(n), decodeQuantity)
  })
})

describe('selectors', () => {
  const labels: Record<string, (n: number) => string> = {
    'many requirements': n => 'a=b,'.repeat(n) + 'a=b',
    'many distinct requirements': n => Array.from({ length: n }, (_, i) => `k${i}=v`).join(','),
    'a long set': n => `a in (${'b,'.repeat(n)}b)`,
    'a long key': n => 'a'.repeat(n) + '=b',
    'a long invalid key': n => 'a-'.repeat(n) + '!=b',
    'a long value': n => 'a=' + 'b.'.repeat(n),
    'open brackets': n => 'a in ('.repeat(n),
    'spaces before an operator': n => 'a' + ' '.repeat(n) + 'x'
  }
  for (const [what, input] of Object.entries(labels)) {
    it(`label selector: ${what}`, () => assertLinear(what, input, parseLabelSelector))
  }
  const supported = new Set(['metadata.name', 'metadata.namespace'])
  const fields: Record<string, (n: number) => string> = {
    'escaped commas': n => 'metadata.name=' + '\\,'.repeat(n),
    'many terms': n => 'metadata.name=a,'.repeat(n) + 'metadata.name=a',
    'no operator': n => 'm'.repeat(n),
    'operators in the value': n => 'metadata.name=' + '=='.repeat(n),
    'spaces before the value': n => 'metadata.name=' + ' '.repeat(n) + 'x'
  }
  for (const [what, input] of Object.entries(fields)) {
    it(`field selector: ${what}`, () => assertLinear(what, input, s => parseFieldSelector(s, supported)))
  }
  it('the name a field selector pins in the request info', () => {
    for (const value of [(n: number) => ' '.repeat(n) + 'x', (n: number) => 'x' + ' '.repeat(n) + 'y']) {
      assertLinear('pinned name', n => '/api/v1/namespaces/a/pods?fieldSelector=' + encodeURIComponent('metadata.name=' + value(n)),
        url => parseRequestInfo('GET', url))
    }
  })
  it('the pinned name is the one the regular expression found, on short input', () => {
    const pinnedByRegex = (selector: string): string => {
      for (const part of selector.split(',')) {
        const m = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(part)
        if (m !== null) return m[1]!
      }
      return ''
    }
    const piece = fc.constantFrom('metadata.name', 'metadata.namespace', '=', '==', ' ', '\t', '\n', ',', 'a', 'b c', '\u2028', '\u00a0')
    fc.assert(fc.property(fc.array(piece, { maxLength: 8 }), pieces => {
      const selector = pieces.join('')
      const info = parseRequestInfo('GET', '/api/v1/pods?fieldSelector=' + encodeURIComponent(selector))
      assert.equal(info.fieldSelectorName, pinnedByRegex(selector))
    }), { numRuns: 2000 })
  })
  it('field selectors translated for a converted version', () => {
    assertLinear('translated', n => 'a=' + ' '.repeat(n) + 'x,' + 'b '.repeat(n), s => translateFieldSelector(s, { a: 'a' }))
  })
})

describe('names, label values, CIDRs and JSON patch paths', () => {
  it('validation of names and values', () => {
    assertLinear('label value', n => 'a-'.repeat(n) + '!', labelValueProblems)
    assertLinear('qualified name', n => 'a.'.repeat(n) + '/' + 'b-'.repeat(n), qualifiedNameProblems)
    assertLinear('subdomain', n => 'a-a.'.repeat(n) + '!', dnsSubdomainProblems)
    assertLinear('domain-prefixed path', n => 'a-a.'.repeat(n) + '/' + 'b/'.repeat(n) + '\u0000', s => validateDomainPrefixedPath(s, 'spec.controller'))
    assertLinear('base64', n => 'QUFB'.repeat(n) + 'QQ=!', isBase64)
  })
  it('CIDRs', () => {
    assertLinear('digits', n => '1'.repeat(n) + '/24', parseCidr)
    assertLinear('IPv6 with a v4 tail', n => '::ffff:' + '1.'.repeat(n) + '1/64', parseCidr)
  })
  it('JSON patch paths', () => {
    const schema = Type.Object({})
    assertLinear('escaped path', n => '/metadata/annotations/' + '~1'.repeat(n),
      path => applyPatch('json', { metadata: { annotations: {} } }, [{ op: 'add', path, value: 'x' }], schema))
  })
})
