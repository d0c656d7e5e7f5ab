// --admission-control-config-file: an AdmissionConfiguration naming, per plugin, its
// configuration inline (`configuration`) or in a file of its own (`path`, relative to this
// one). A malformed file stops start-up with a message naming the file and the problem.
import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { ADMISSION_CONFIG_API_VERSIONS } from '../resources/naming.js'

type AnyObject = Record<string, any>

const isObject = (v: unknown): v is AnyObject => typeof v === 'object' && v !== null && !Array.isArray(v)

function readDocument (file: string): unknown {
  let text: string
  try { text = readFileSync(file, 'utf8') } catch (err) { throw new Error(`--admission-control-config-file: cannot read ${file}: ${(err as Error).message}`) }
  try { return parseYaml(text) } catch (err) { throw new Error(`--admission-control-config-file: ${file} is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`) }
}

/** Plugin name → its configuration object. */
export function readAdmissionConfigFile (file: string): Map<string, AnyObject> {
  const doc = readDocument(file)
  const fail = (why: string): never => { throw new Error(`--admission-control-config-file ${file}: ${why}`) }
  if (!isObject(doc)) fail('must be an object of kind AdmissionConfiguration')
  const d = doc as AnyObject
  if (d.kind !== 'AdmissionConfiguration') fail(`kind must be AdmissionConfiguration, not ${JSON.stringify(d.kind)}`)
  if (!ADMISSION_CONFIG_API_VERSIONS.includes(d.apiVersion)) fail(`apiVersion must be one of ${ADMISSION_CONFIG_API_VERSIONS.join(', ')}, not ${JSON.stringify(d.apiVersion)}`)
  if (d.plugins !== undefined && d.plugins !== null && !Array.isArray(d.plugins)) fail('plugins must be a list')
  const out = new Map<string, AnyObject>()
  ;((d.plugins ?? []) as unknown[]).forEach((p, i) => {
    if (!isObject(p) || typeof p.name !== 'string' || p.name === '') fail(`plugins[${i}] needs a name`)
    const entry = p as AnyObject
    if (out.has(entry.name)) fail(`plugins[${i}]: ${entry.name} is configured twice`)
    const hasPath = typeof entry.path === 'string' && entry.path !== ''
    const hasInline = entry.configuration !== undefined && entry.configuration !== null
    if (hasPath === hasInline) fail(`plugins[${i}] (${entry.name}) needs exactly one of path or configuration`)
    let config: unknown = entry.configuration
    let source = file
    if (hasPath) {
      const path = isAbsolute(entry.path) ? entry.path : resolve(dirname(file), entry.path)
      config = readDocument(path)
      source = path
    }
    if (!isObject(config)) fail(`plugins[${i}] (${entry.name}): the configuration must be an object`)
    // Paths inside a plugin's configuration are relative to the file that holds it. Where it
    // came from rides along unenumerated, so a plugin that refuses unknown fields never sees it.
    out.set(entry.name, Object.defineProperties({ ...(config as AnyObject) }, {
      baseDir: { value: dirname(source), enumerable: false },
      source: { value: source, enumerable: false }
    }))
  })
  return out
}
