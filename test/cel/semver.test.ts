import { describe, it } from 'node:test'
import { assertAllTrue, assertEvalError } from './helpers.js'

describe('CEL semver library', () => {
  it('parses and compares semantic versions by precedence', () => assertAllTrue([
    'isSemver("1.2.3")', 'isSemver("1.2.3-rc.1+build.5")', '!isSemver("1.2")', '!isSemver("01.2.3")',
    'semver("1.2.3").major() == 1', 'semver("1.2.3").minor() == 2', 'semver("1.2.3").patch() == 3',
    'semver("1.2.3").isLessThan(semver("1.10.0"))', 'semver("1.0.0").isGreaterThan(semver("1.0.0-rc.1"))',
    'semver("1.0.0-alpha.2").isLessThan(semver("1.0.0-alpha.10"))', 'semver("1.0.0-alpha").isLessThan(semver("1.0.0-alpha.1"))',
    'semver("1.0.0").compareTo(semver("1.0.0+meta")) == 0', 'semver("2.0.0") == semver("2.0.0")'
  ]))
  it('fails semver() of malformed text', () => assertEvalError('semver("1.2").major() == 1', /not a valid semver/))
})
