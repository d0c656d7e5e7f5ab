// The reference's format library (apiserver/pkg/cel/library/format.go): `format.<name>()` and
// `format.named(name)` give a named format whose validate(string) is optional.none() when the
// value is valid, else the list of problems. `format` is a constant of a namespace type here, as
// the engine cannot declare dotted global function names.
import { Optional, type Environment } from '@marcbachmann/cel-js'
import { dns1035LabelProblems, dnsLabelProblems, dnsSubdomainProblems, labelValueProblems, qualifiedNameProblems } from '../../../resources/validation.js'
import { parseUrl } from './urls.js'

export class FormatNamespace {}
export class NamedFormat {
  constructor (readonly name: string, readonly check: (s: string) => string[]) {}
}

// NameIsDNSLabel(prefix=true): a trailing dash is allowed, since a suffix will follow.
const asPrefix = (check: (s: string) => string[]) => (s: string) => check(s.length > 1 && s.endsWith('-') ? s.slice(0, -1) + 'a' : s)

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

const validDate = (s: string): boolean => !Number.isNaN(Date.parse(s.slice(0, 10) + 'T00:00:00Z')) && new Date(s.slice(0, 10) + 'T00:00:00Z').toISOString().startsWith(s.slice(0, 10))

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: dnsLabelProblems,
  dns1123Subdomain: dnsSubdomainProblems,
  dns1035Label: dns1035LabelProblems,
  qualifiedName: qualifiedNameProblems,
  dns1123LabelPrefix: asPrefix(dnsLabelProblems),
  dns1123SubdomainPrefix: asPrefix(dnsSubdomainProblems),
  dns1035LabelPrefix: asPrefix(dns1035LabelProblems),
  labelValue: labelValueProblems,
  uri: (s) => parseUrl(s) === undefined ? ['invalid URI'] : [],
  uuid: (s) => UUID.test(s) ? [] : ['does not match the UUID format'],
  byte: (s) => BASE64.test(s) ? [] : ['invalid base64'],
  date: (s) => DATE.test(s) && validDate(s) ? [] : ['invalid date'],
  datetime: (s) => DATETIME.test(s) && validDate(s) ? [] : ['invalid datetime']
}

export function registerFormat (env: Environment): void {
  env.registerType('kubernetes.formats', { ctor: FormatNamespace })
  env.registerType('kubernetes.NamedFormat', { ctor: NamedFormat })
  env.registerConstant('format', 'kubernetes.formats', new FormatNamespace())
  for (const [name, check] of Object.entries(FORMATS)) {
    const f = new NamedFormat(name, check)
    env.registerFunction(`kubernetes.formats.${name}(): kubernetes.NamedFormat`, () => f)
  }
  env.registerFunction('kubernetes.formats.named(string): optional<kubernetes.NamedFormat>', (_ns: FormatNamespace, name: string) => {
    const check = Object.hasOwn(FORMATS, name) ? FORMATS[name] : undefined
    return check === undefined ? Optional.none() : Optional.of(new NamedFormat(name, check))
  })
  env.registerFunction('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: NamedFormat, s: string) => {
    const problems = f.check(s)
    return problems.length === 0 ? Optional.none() : Optional.of(problems)
  })
}
