// The PodSecurity plugin's configuration (a PodSecurityConfiguration in
// --admission-control-config-file): the policy of namespaces that set no labels, and the users,
// runtime classes and namespaces exempt from it. Without one, every level is privileged:latest.
// A configuration that does not validate stops start-up, with the reference server's words.
import { fieldErrorText, fieldError, type FieldError } from '../../resources/status.js'
import { POD_SECURITY } from '../../resources/naming.js'
import { dnsLabelProblems, dnsSubdomainProblems } from '../../resources/validation.js'
import { LEVEL_PROBLEM, MODES, parseLevel, parseVersion, VERSION_PROBLEM, type Policy } from './policy.js'

export interface PodSecurityConfiguration {
  defaults: Policy
  exemptions: { usernames: Set<string>, namespaces: Set<string>, runtimeClasses: Set<string> }
}

type AnyObject = Record<string, any>

const DEFAULTS_FIELDS = ['enforce', 'enforce-version', 'audit', 'audit-version', 'warn', 'warn-version']
const EXEMPTION_FIELDS = ['usernames', 'namespaces', 'runtimeClasses'] as const
const isObject = (v: unknown): v is AnyObject => typeof v === 'object' && v !== null && !Array.isArray(v)

const fail = (why: string): never => { throw new Error(`--admission-control-config-file: PodSecurity ${why}`) }

function unknownFields (obj: AnyObject, known: readonly string[], path: string): void {
  for (const key of Object.keys(obj)) if (!known.includes(key)) fail(`configuration: unknown field "${path}${key}"`)
}

function stringList (value: unknown, field: string): string[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || value.some(v => typeof v !== 'string')) fail(`configuration: ${field} must be a list of strings`)
  return value as string[]
}

/** Names that must each be valid and appear once. */
function validateNames (names: readonly string[], field: string, problems: (name: string) => string[]): FieldError[] {
  const errors: FieldError[] = []
  const seen = new Set<string>()
  names.forEach((name, i) => {
    const found = problems(name)
    if (found.length > 0) errors.push(fieldError('Invalid', `${field}[${i}]`, name, found.join(', ')))
    else if (seen.has(name)) errors.push(fieldError('Duplicate', `${field}[${i}]`, name))
    else seen.add(name)
  })
  return errors
}

/** The configuration object as the admission chain holds it (`baseDir` beside its fields), or none. */
export function podSecurityConfiguration (config: AnyObject | undefined): PodSecurityConfiguration {
  const { baseDir: _baseDir, ...doc } = config ?? { apiVersion: POD_SECURITY.configurationApiVersions[0], kind: POD_SECURITY.configurationKind }
  if (doc.kind !== POD_SECURITY.configurationKind) fail(`configuration must be of kind ${POD_SECURITY.configurationKind}, not ${JSON.stringify(doc.kind)}`)
  if (!POD_SECURITY.configurationApiVersions.includes(doc.apiVersion)) {
    fail(`configuration's apiVersion must be one of ${POD_SECURITY.configurationApiVersions.join(', ')}, not ${JSON.stringify(doc.apiVersion)}`)
  }
  unknownFields(doc, ['apiVersion', 'kind', 'defaults', 'exemptions'], '')
  const defaults: AnyObject = doc.defaults ?? {}
  const exemptions: AnyObject = doc.exemptions ?? {}
  if (!isObject(defaults)) fail('configuration: defaults must be an object')
  if (!isObject(exemptions)) fail('configuration: exemptions must be an object')
  unknownFields(defaults, DEFAULTS_FIELDS, 'defaults.')
  unknownFields(exemptions, EXEMPTION_FIELDS, 'exemptions.')

  const errors: FieldError[] = []
  const policy = {} as Policy
  // Validated in the reference server's order: enforce, warn, audit.
  for (const mode of ['enforce', 'warn', 'audit'] as const) {
    // Unset or empty fields default to privileged:latest.
    const level = defaults[mode] === undefined || defaults[mode] === '' ? 'privileged' : defaults[mode]
    const version = defaults[`${mode}-version`] === undefined || defaults[`${mode}-version`] === '' ? 'latest' : defaults[`${mode}-version`]
    const parsedLevel = typeof level === 'string' ? parseLevel(level) : undefined
    const parsedVersion = typeof version === 'string' ? parseVersion(version) : undefined
    if (parsedLevel === undefined) errors.push(fieldError('Invalid', `defaults.${mode}`, level, LEVEL_PROBLEM))
    if (parsedVersion === undefined) errors.push(fieldError('Invalid', `defaults.${mode}-version`, version, VERSION_PROBLEM))
    policy[mode] = { level: parsedLevel ?? 'restricted', version: parsedVersion ?? 'latest' }
  }
  const namespaces = stringList(exemptions.namespaces, 'exemptions.namespaces')
  const runtimeClasses = stringList(exemptions.runtimeClasses, 'exemptions.runtimeClasses')
  const usernames = stringList(exemptions.usernames, 'exemptions.usernames')
  errors.push(...validateNames(namespaces, 'exemptions.namespaces', dnsLabelProblems))
  errors.push(...validateNames(runtimeClasses, 'exemptions.runtimeClasses', dnsSubdomainProblems))
  errors.push(...validateNames(usernames, 'exemptions.usernames', name => name === '' ? ['username must not be empty'] : []))
  if (errors.length > 0) {
    const texts = errors.map(e => `${e.field}: ${fieldErrorText(e)}`)
    fail(`invalid: ${texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`}`)
  }
  return {
    defaults: Object.fromEntries(MODES.map(m => [m, policy[m]])) as unknown as Policy,
    exemptions: { usernames: new Set(usernames), namespaces: new Set(namespaces), runtimeClasses: new Set(runtimeClasses) }
  }
}
