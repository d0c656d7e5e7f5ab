// PodTolerationRestriction (alpha, off by default): a new pod gets its namespace's default
// tolerations (the `scheduler.alpha.svc.io/defaultTolerations` annotation, a JSON list, else the
// configured `default`), a pod that is not BestEffort tolerates the memory-pressure taint, and
// the pod's tolerations must then be covered by the namespace's whitelist
// (`scheduler.alpha.svc.io/tolerationsWhitelist`, else the configured `whitelist`).
// Configuration (--admission-control-config-file): kind Configuration with `default` and
// `whitelist`, lists of tolerations.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden, notFound, fieldErrorText } from '../resources/status.js'
import { MEMORY_PRESSURE_TAINT, SCHEDULER_ANNOTATIONS } from '../resources/naming.js'
import { validateTolerations } from '../resources/core-types.js'
import { qosClass } from '../resources/pods.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'
import { allowedByWhitelist, mergeTolerations } from './tolerations.js'

const NAME = 'PodTolerationRestriction'
const PODS = { group: '', resource: 'pods' }

function configuredList (config: AnyObject | undefined, field: 'default' | 'whitelist'): AnyObject[] | undefined {
  const list: unknown = config?.[field]
  if (list === undefined || list === null) return undefined
  if (!Array.isArray(list) || list.some(t => typeof t !== 'object' || t === null || Array.isArray(t))) throw new Error(`${NAME}: ${field} must be a list of tolerations`)
  const problems = validateTolerations(list, field)
  if (problems.length > 0) throw new Error(`${NAME}: ${problems.map(e => `${e.field}: ${fieldErrorText(e)}`).join('; ')}`)
  return list
}

export default fp(async function podTolerationRestriction (fastify: FastifyInstance) {
  const config = fastify.admission.configuration(NAME)
  const clusterDefault = configuredList(config, 'default')
  const clusterWhitelist = configuredList(config, 'whitelist')
  const refuse = (a: AdmissionAttributes, why: string): Error => forbidden(PODS, a.object!.metadata?.name ?? a.name, why)

  /** A namespace annotation's tolerations: undefined when it is absent, none when it is empty. */
  async function namespaceTolerations (a: AdmissionAttributes, key: string): Promise<AnyObject[] | undefined> {
    const ns = await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace)
    if (ns === undefined) throw notFound({ group: '', resource: 'namespaces' }, a.namespace)
    const value: unknown = ns.metadata?.annotations?.[key]
    if (typeof value !== 'string') return undefined
    if (value === '') return []
    let list: unknown
    try { list = JSON.parse(value) } catch (err) { throw refuse(a, `namespace ${a.namespace}: ${key}: ${(err as Error).message}`) }
    if (list === null) return []
    if (!Array.isArray(list) || list.some(t => typeof t !== 'object' || t === null || Array.isArray(t))) throw refuse(a, `namespace ${a.namespace}: ${key}: must be a JSON list of tolerations`)
    return list as AnyObject[]
  }

  async function checkWhitelist (a: AdmissionAttributes): Promise<void> {
    const tolerations: AnyObject[] = a.object!.spec?.tolerations ?? []
    if (tolerations.length === 0) return
    let whitelist = await namespaceTolerations(a, SCHEDULER_ANNOTATIONS.tolerationsWhitelist)
    let scope = 'namespace'
    if (whitelist === undefined) {
      whitelist = clusterWhitelist ?? []
      scope = 'cluster'
    }
    if (!allowedByWhitelist(tolerations, whitelist)) {
      throw refuse(a, `pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`)
    }
  }

  fastify.admission.add({
    name: NAME,
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined,
    async mutate (a) {
      const spec: AnyObject = a.object!.spec ??= {}
      const extra: AnyObject[] = []
      if (a.operation === 'CREATE') extra.push(...structuredClone((await namespaceTolerations(a, SCHEDULER_ANNOTATIONS.defaultTolerations)) ?? clusterDefault ?? []))
      if (qosClass(a.object!) !== 'BestEffort') extra.push({ key: MEMORY_PRESSURE_TAINT, operator: 'Exists', effect: 'NoSchedule' })
      if (extra.length > 0) spec.tolerations = mergeTolerations(spec.tolerations ?? [], extra)
      await checkWhitelist(a)
    },
    validate: checkWhitelist
  })
}, { name: 'admission:pod-toleration-restriction', dependencies: ['admission'] })
