// The admission chain: enabled plugins' mutate phase, then their validate phase, run inside the
// generic store with the old object at hand. Any rejection fails the whole request.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AdmissionAttributes, AdmissionChain, AdmissionOptions, AdmissionPlugin, AuditLevel, Reinvocation } from '../resources/admission.js'
import { readAdmissionConfigFile } from './config-file.js'
import { checkPluginNames, type AdmissionPluginEntry } from './index.js'

declare module 'fastify' {
  interface FastifyInstance { admission: AdmissionChain }
}

export interface AdmissionChainOptions extends AdmissionOptions {
  /** The plugins the server has, in chain order (admission/index.ts). */
  plugins: readonly AdmissionPluginEntry[]
}

export default fp(async function admission (fastify: FastifyInstance, opts: AdmissionChainOptions) {
  checkPluginNames(opts)
  const entries = new Map(opts.plugins.map(p => [p.name, p]))
  const wanted = new Set([...opts.plugins.filter(p => p.enabled === 'default').map(p => p.name), ...(opts.enable ?? [])])
  for (const name of opts.disable ?? []) wanted.delete(name)
  for (const p of opts.plugins) if (p.deprecated !== undefined && wanted.has(p.name)) fastify.log.warn(p.deprecated)
  const runs = (entry: AdmissionPluginEntry): boolean => entry.enabled === 'always' || wanted.has(entry.name)
  const configurations = opts.configFile === undefined ? new Map<string, Record<string, any>>() : readAdmissionConfigFile(opts.configFile)
  const plugins: AdmissionPlugin[] = []
  const annotationLevels = new Map<string, AuditLevel>()
  const mutateOnce = async (a: AdmissionAttributes): Promise<void> => {
    for (const p of plugins) if (p.mutate !== undefined && p.handles(a)) await p.mutate(a)
  }
  // apiserver_admission_step_admission_duration_seconds: each phase timed whole, rejected or not.
  // The phases below time themselves rather than through a wrapper taking a closure: every write
  // runs both, and the closures and their extra promises were garbage per request.
  const stepDone = (a: AdmissionAttributes, type: 'admit' | 'validate', rejected: boolean, start: number): void => {
    fastify.metrics?.admissionStep(a.operation, type, rejected, (performance.now() - start) / 1000)
  }
  const chain: AdmissionChain = {
    add (plugin) {
      if (plugin.alwaysOn === true) { plugins.push(plugin); return }
      const entry = entries.get(plugin.name)
      if (entry === undefined) throw new Error(`admission plugin ${plugin.name} is not in the admission plugins list`)
      const phases = [plugin.mutate !== undefined && 'mutating', plugin.validate !== undefined && 'validating'].filter(p => p !== false)
      if (entry.phase !== 'both' && phases.some(p => p !== entry.phase)) throw new Error(`admission plugin ${plugin.name} implements ${phases.join(' and ')}, its entry says ${entry.phase} only`)
      if (runs(entry)) plugins.push(plugin)
    },
    async mutate (a) {
      const start = performance.now()
      let rejected = true
      try {
        const reinvocation = new PhaseReinvocation()
        a.reinvocation = reinvocation
        await mutateOnce(a)
        if (reinvocation.requested) {
          reinvocation.isReinvoke = true
          await mutateOnce(a)
        }
        rejected = false
      } finally {
        stepDone(a, 'admit', rejected, start)
      }
    },
    async validate (a) {
      const start = performance.now()
      let rejected = true
      try {
        for (const p of plugins) if (p.validate !== undefined && p.handles(a)) await p.validate(a)
        rejected = false
      } finally {
        stepDone(a, 'validate', rejected, start)
      }
    },
    enabled: () => plugins.map(p => p.name),
    wants: (name) => wanted.has(name),
    configuration: (name) => configurations.get(name),
    options: opts,
    annotationLevel (prefix, level) { annotationLevels.set(prefix, level) },
    auditLevel (key) {
      for (const [prefix, level] of annotationLevels) if (key.startsWith(prefix)) return level
      return 'Metadata'
    }
  }
  fastify.decorate('admission', chain)
}, { name: 'admission' })

/**
 * One mutate phase's reinvocation, the same object for both runs; the plugins' state Map is made
 * only when a plugin keeps some (most writes meet no plugin that does).
 */
class PhaseReinvocation implements Reinvocation {
  isReinvoke = false
  /** Whether a plugin asked for the second run during the first. */
  requested = false
  #state: Map<string, unknown> | undefined
  get state (): Map<string, unknown> { return (this.#state ??= new Map()) }
  requestReinvoke (): void { if (!this.isReinvoke) this.requested = true }
}
