// What PodSecurity counts, in the reference recorder's labels: evaluations by decision, level,
// version and mode; exempt requests; errors that stopped (fatal) or degraded an evaluation.
import type { FastifyInstance } from 'fastify'
import { API_LEVEL } from '../../resources/naming.js'
import type { AdmissionAttributes } from '../../resources/admission.js'
import { atLeast, LATEST, versionText, type LevelVersion, type Mode } from './policy.js'

const SERVER_VERSION = Number(API_LEVEL.minor)

/** The resource label: the two core kinds by name, anything else with a pod template as a controller. */
const RESOURCE_LABELS: Record<string, string> = { pods: 'pod', namespaces: 'namespace' }

/** What the plugin counts (pod_security_evaluations_total, _exemptions_total, _errors_total). */
export interface Recorder {
  evaluation (decision: 'allow' | 'deny', lv: LevelVersion, mode: Mode, a: AdmissionAttributes): void
  exemption (a: AdmissionAttributes): void
  error (fatal: boolean, a: AdmissionAttributes): void
}

export function recorder (fastify: FastifyInstance): Recorder {
  const operation = (a: AdmissionAttributes): string => a.operation.toLowerCase()
  const resource = (a: AdmissionAttributes): string => (a.resource.group === '' ? RESOURCE_LABELS[a.resource.plural] : undefined) ?? 'controller'
  // Privileged is the same at every version; versions newer than this server's are one label.
  const version = (lv: LevelVersion): string =>
    lv.version === LATEST || lv.level === 'privileged' ? 'latest' : atLeast(SERVER_VERSION, lv.version) ? versionText(lv.version) : 'future'
  return {
    evaluation: (decision, lv, mode, a) => fastify.metrics?.podSecurityEvaluation(decision, lv.level, version(lv), mode, operation(a), resource(a), a.subresource),
    exemption: (a) => fastify.metrics?.podSecurityExemption(operation(a), resource(a), a.subresource),
    error: (fatal, a) => fastify.metrics?.podSecurityError(fatal, operation(a), resource(a), a.subresource)
  }
}
