// ClusterRole aggregation: every ClusterRole with an aggregationRule holds the union of the rules
// of the ClusterRoles its selectors match, recomputed whenever any ClusterRole changes.
import fp from 'fastify-plugin'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { GROUPS } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import type { ResourceStore } from '../storage/resource-store.js'
import { matchesLabels, selectorRequirements } from '../machinery/selectors.js'
import { APISERVER_USER } from '../resources/user-info.js'
import { whileLeading } from './loop.js'

/** The rules an aggregated role should hold: matched roles in name order, duplicates dropped. */
export function aggregatedRules (role: AnyObject, all: AnyObject[]): AnyObject[] {
  const rules: AnyObject[] = []
  const sorted = [...all].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
  for (const selector of role.aggregationRule?.clusterRoleSelectors ?? []) {
    const requirements = selectorRequirements(selector)
    for (const other of sorted) {
      if (other.metadata.name === role.metadata.name) continue
      if (!matchesLabels(requirements, other.metadata.labels ?? {})) continue
      for (const r of other.rules ?? []) if (!rules.some(x => isDeepStrictEqual(x, r))) rules.push(r)
    }
  }
  return rules
}

export default fp(async function clusterRoleAggregation (fastify: FastifyInstance) {
  let watch: { stop (): void } | undefined
  let stopped = true
  let running = false
  let again = false

  const store = (): ResourceStore => fastify.resources.find({ group: GROUPS.rbac, resource: 'clusterroles' })!
  const options = { dryRun: false, fieldValidation: 'Ignore' as const, force: false, subresource: '' }

  async function syncAll (): Promise<void> {
    const s = store()
    const all = s.cachedObjects()
    for (const role of all) {
      if (role.aggregationRule === undefined || role.aggregationRule === null) continue
      const want = aggregatedRules(role, all)
      if (isDeepStrictEqual(want, role.rules ?? [])) continue
      try {
        await s.update('', role.metadata.name, (old) => ({ ...old, rules: aggregatedRules(old, all) }), options,
          { user: APISERVER_USER, manager: 'clusterrole-aggregation-controller', warnings: [] })
      } catch (err) {
        // A concurrent change brings its own event and another pass.
        if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
      }
    }
  }

  /** Coalesces bursts of events into one pass at a time, with one more pass if events arrived during it. */
  function schedule (): void {
    if (stopped) return
    if (running) { again = true; return }
    running = true
    void syncAll()
      .catch((err: unknown) => { fastify.log.warn({ err }, 'clusterrole aggregation failed; will retry on the next change') })
      .finally(() => {
        running = false
        if (again) { again = false; setImmediate(schedule) }
      })
  }

  whileLeading(fastify, 'clusterrole-aggregation', async () => {
    stopped = false
    const s = store()
    await s.cache.ready
    watch = s.cache.watch(s.prefix, s.cache.revision, () => schedule(), (err) => {
      if (!stopped) fastify.log.warn({ err }, 'clusterrole aggregation watch ended')
    })
    await syncAll()
  }, async () => {
    stopped = true
    watch?.stop()
    watch = undefined
  })
}, { name: 'controller:clusterrole-aggregation', dependencies: ['rest'] })
