// PodNodeSelector (alpha, off by default): a new pod's nodeSelector is merged with its
// namespace's (the `scheduler.alpha.svc.io/node-selector` annotation, else the configured
// clusterDefaultNodeSelector), a conflicting value refused; the result must stay within the
// namespace's whitelist from the configuration, if it has one. Configuration
// (--admission-control-config-file): `podNodeSelectorPluginConfig` maps
// `clusterDefaultNodeSelector` and namespace names to selectors written `key=value,key=value`.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden, notFound } from '../resources/status.js'
import { SCHEDULER_ANNOTATIONS } from '../resources/naming.js'
import { labelValueProblems, qualifiedNameProblems } from '../resources/validation.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'

const NAME = 'PodNodeSelector'
const PODS = { group: '', resource: 'pods' }
const CLUSTER_DEFAULT = 'clusterDefaultNodeSelector'

type Labels = Record<string, string>

/** `key=value,key=value` as a label map (upstream's ConvertSelectorToLabelsMap); throws the problem as text. */
export function selectorLabels (selector: string): Labels {
  const out: Labels = {}
  if (selector === '') return out
  for (const term of selector.split(',')) {
    const parts = term.split('=')
    if (parts.length !== 2) throw new Error(`invalid selector: [${parts.join(' ')}]`)
    const key = parts[0]!.trim()
    const value = parts[1]!.trim()
    const keyProblems = qualifiedNameProblems(key)
    if (keyProblems.length > 0) throw new Error(`Invalid value: ${JSON.stringify(key)}: ${keyProblems.join('; ')}`)
    const valueProblems = labelValueProblems(value)
    if (valueProblems.length > 0) throw new Error(`Invalid value: ${JSON.stringify(value)}: ${valueProblems.join('; ')}`)
    out[key] = value
  }
  return out
}

const conflicts = (a: Labels, b: Labels): boolean => Object.entries(a).some(([k, v]) => b[k] !== undefined && b[k] !== v)

/** The configured selectors, each checked at start so a malformed one stops the server. */
function readConfiguration (config: AnyObject | undefined): Map<string, Labels> {
  const out = new Map<string, Labels>()
  const entries: unknown = config?.podNodeSelectorPluginConfig
  if (entries === undefined || entries === null) return out
  if (typeof entries !== 'object' || Array.isArray(entries)) throw new Error(`${NAME}: podNodeSelectorPluginConfig must map names to selectors`)
  for (const [name, selector] of Object.entries(entries as AnyObject)) {
    if (typeof selector !== 'string') throw new Error(`${NAME}: podNodeSelectorPluginConfig.${name} must be a selector string`)
    try { out.set(name, selectorLabels(selector)) } catch (err) { throw new Error(`${NAME}: podNodeSelectorPluginConfig.${name}: ${(err as Error).message}`) }
  }
  return out
}

export default fp(async function podNodeSelector (fastify: FastifyInstance) {
  const configured = readConfiguration(fastify.admission.configuration(NAME))
  const refuse = (a: AdmissionAttributes, why: string): Error => forbidden(PODS, a.object!.metadata?.name ?? a.name, why)

  /** The namespace's selector: its annotation, else the cluster default. */
  async function namespaceSelector (a: AdmissionAttributes): Promise<Labels> {
    const ns = await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace)
    if (ns === undefined) throw notFound({ group: '', resource: 'namespaces' }, a.namespace)
    const annotation: unknown = ns.metadata?.annotations?.[SCHEDULER_ANNOTATIONS.nodeSelector]
    if (typeof annotation !== 'string') return configured.get(CLUSTER_DEFAULT) ?? {}
    try { return selectorLabels(annotation) } catch (err) { throw refuse(a, `namespace ${a.namespace}: ${SCHEDULER_ANNOTATIONS.nodeSelector}: ${(err as Error).message}`) }
  }

  async function check (a: AdmissionAttributes, nsSelector: Labels): Promise<void> {
    const own: Labels = a.object!.spec?.nodeSelector ?? {}
    if (conflicts(nsSelector, own)) throw refuse(a, 'pod node label selector conflicts with its namespace node label selector')
    const whitelist = configured.get(a.namespace) ?? {}
    if (Object.keys(whitelist).length > 0 && Object.entries(own).some(([k, v]) => whitelist[k] !== v)) {
      throw refuse(a, 'pod node label selector labels conflict with its namespace whitelist')
    }
  }

  fastify.admission.add({
    name: NAME,
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined,
    async mutate (a) {
      const nsSelector = await namespaceSelector(a)
      const spec: AnyObject = a.object!.spec ??= {}
      if (conflicts(nsSelector, spec.nodeSelector ?? {})) throw refuse(a, 'pod node label selector conflicts with its namespace node label selector')
      const merged = { ...nsSelector, ...(spec.nodeSelector ?? {}) }
      if (Object.keys(merged).length > 0 || spec.nodeSelector !== undefined) spec.nodeSelector = merged
      await check(a, nsSelector)
    },
    async validate (a) { await check(a, await namespaceSelector(a)) }
  })
}, { name: 'admission:pod-node-selector', dependencies: ['admission'] })
