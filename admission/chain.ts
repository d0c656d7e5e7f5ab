// The admission chain: enabled plugins' mutate phase, then their validate phase, run inside the
// generic store with the old object at hand. Any rejection fails the whole request.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AdmissionAttributes, AdmissionChain, AdmissionOptions, AdmissionPlugin, AuditLevel } from '../resources/admission.js'
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
  const timed = async (type: 'admit' | 'validate', a: AdmissionAttributes, run: () => Promise<void>): Promise<void> => {
    const start = performance.now()
    let rejected = true
    try {
      await run()
      rejected = false
    } finally {
      fastify.metrics?.admissionStep(a.operation, type, rejected, (performance.now() - start) / 1000)
    }
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
    mutate (a) {
      return timed('admit', a, async () => {
        let again = false
        const state = new Map<string, unknown>()
        a.reinvocation = { isReinvoke: false, requestReinvoke: () => { again = true }, state }
        await mutateOnce(a)
        if (!again) return
        a.reinvocation = { isReinvoke: true, requestReinvoke: () => {}, state }
        await mutateOnce(a)
      })
    },
    validate (a) {
      return timed('validate', a, async () => {
        for (const p of plugins) if (p.validate !== undefined && p.handles(a)) await p.validate(a)
      })
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
