// The string formats a CRD schema may name at 1.33 (the reference's formats.go, checked as
// go-openapi's strfmt registry checks them). Names compare without dashes (`date-time` is
// `datetime`); a format the version does not know is ignored, as the reference strips it.
import { isIPv4, isIPv6 } from 'node:net'
import { parseQuantity } from '../../resources/quantity.js'
import type { RE2JS } from 're2js'
import { compilePattern, patternMatches } from './pattern.js'

/** Compiled at the first value checked: a start compiles none of them (about 30 ms at once). */
const re = (source: string): (v: string) => boolean => {
  let compiled: RE2JS | undefined
  return (v) => {
    if (compiled === undefined) {
      const c = compilePattern(source)
      if (!c.ok) throw new Error(c.error)
      compiled = c.re
    }
    return patternMatches(compiled, v)
  }
}

const uuid = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$')
const uuid3 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$')
const uuid4 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$')
const uuid5 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$')
const hostnamePattern = re('^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$')
const byte = re('^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$')
const ssn = re('^\\d{3}[- ]?\\d{2}[- ]?\\d{4}$')
const hexColor = re('^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$')
const octet = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])'
const rgbColor = re(`^rgb\\(\\s*${octet}\\s*,\\s*${octet}\\s*,\\s*${octet}\\s*\\)$`)
const creditCard = re('^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\d{3})\\d{11}|6[27][0-9]{14})$')
const email = re('^[^\\s@<>()\\[\\],;:"]+@[^\\s@<>()\\[\\],;:"]+$')
const mac = re('(?i)^(?:[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}|[0-9a-f]{2}(?:[:-][0-9a-f]{2}){7}|[0-9a-f]{2}(?:[:-][0-9a-f]{2}){19}|[0-9a-f]{4}(?:\\.[0-9a-f]{4}){2}|[0-9a-f]{4}(?:\\.[0-9a-f]{4}){3}|[0-9a-f]{4}(?:\\.[0-9a-f]{4}){9})$')
const dateTime = re('^(\\d{4})-(\\d{2})-(\\d{2})[Tt ](\\d{2}):(\\d{2})(:(\\d{2})(\\.\\d+)?)?([Zz]|[+-]\\d{2}:\\d{2})?$')
const goDuration = re('^[-+]?([0-9]*(\\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$')
const unitDuration = re('^(\\d+)\\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$')

// Go's net.ParseIP takes no leading zeros in IPv4 octets and no zone.
const ipv4 = (v: string): boolean => isIPv4(v) && v.split('.').every(o => o === '0' || !o.startsWith('0'))
const ip = (v: string): boolean => ipv4(v) || (isIPv6(v) && !v.includes('%') && (!v.includes('.') || ipv4(v.slice(v.lastIndexOf(':') + 1))))

function validDate (y: string, m: string, d: string): boolean {
  const month = Number(m); const day = Number(d); const year = Number(y)
  if (month < 1 || month > 12 || day < 1) return false
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}

function cidr (v: string): boolean {
  const slash = v.indexOf('/')
  if (slash < 0) return false
  const addr = v.slice(0, slash); const bits = v.slice(slash + 1)
  if (!/^(0|[1-9][0-9]*)$/.test(bits)) return false
  const max = ipv4(addr) ? 32 : ip(addr) ? 128 : -1
  return max >= 0 && Number(bits) <= max
}

function uri (v: string): boolean {
  if (/[\s\x00-\x1f\x7f]/.test(v) || v === '') return false
  if (v.startsWith('/')) return true
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(v)
}

function luhn (digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9 }
    sum += d
  }
  return sum % 10 === 0
}

function isbn10 (v: string): boolean {
  const s = v.replace(/[\s-]/g, '')
  if (!/^[0-9]{9}[0-9X]$/.test(s)) return false
  let sum = 0
  for (let i = 0; i < 10; i++) sum += (i + 1) * (s[i] === 'X' ? 10 : Number(s[i]))
  return sum % 11 === 0
}

function isbn13 (v: string): boolean {
  const s = v.replace(/[\s-]/g, '')
  if (!/^[0-9]{13}$/.test(s)) return false
  let sum = 0
  for (let i = 0; i < 12; i++) sum += Number(s[i]) * (i % 2 === 0 ? 1 : 3)
  return (10 - sum % 10) % 10 === Number(s[12])
}

const CHECKS: Record<string, (v: string) => boolean> = {
  bsonobjectid: v => /^[0-9a-fA-F]{24}$/.test(v),
  uri,
  email,
  hostname: v => v.length <= 255 && hostnamePattern(v),
  ipv4,
  ipv6: v => ip(v) && v.includes(':'),
  cidr,
  mac,
  uuid,
  uuid3,
  uuid4,
  uuid5,
  isbn: v => isbn10(v) || isbn13(v),
  isbn10,
  isbn13,
  creditcard: v => { const d = v.replace(/[^0-9]/g, ''); return creditCard(d) && luhn(d) },
  ssn: v => v.length >= 9 && v.length <= 11 && ssn(v),
  hexcolor: hexColor,
  rgbcolor: rgbColor,
  byte: v => byte(v.replace(/[\r\n]/g, '')),
  password: () => true,
  date: v => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v)
    return m !== null && validDate(m[1]!, m[2]!, m[3]!)
  },
  duration: v => goDuration(v) || unitDuration(v),
  datetime: v => {
    if (!dateTime(v)) return false
    const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2}))?/.exec(v)!
    return validDate(m[1]!, m[2]!, m[3]!) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6] ?? 0) < 60
  },
  quantity: v => parseQuantity(v) !== undefined
}

/** The check of a string format the reference knows at 1.33, or undefined when it ignores it. */
export const stringFormat = (format: string): ((v: string) => boolean) | undefined =>
  Object.hasOwn(CHECKS, format.replaceAll('-', '')) ? CHECKS[format.replaceAll('-', '')] : undefined

/**
 * The format as the reference keeps it after stripping the ones it does not support for the
 * node's type (StripUnsupportedFormatsPostProcess): '' when ignored.
 */
export function effectiveFormat (type: string | undefined, format: string | undefined): string {
  if (format === undefined || format === '') return ''
  switch (type ?? '') {
    case '':
    case 'string': return stringFormat(format) === undefined ? '' : format
    case 'integer': return format === 'int32' || format === 'int64' ? format : ''
    case 'number': return format === 'float' || format === 'double' ? format : ''
    default: return ''
  }
}
