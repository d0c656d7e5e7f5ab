// Default roles and bindings: created at start when missing; existing ones get back the rules,
// subjects, labels and annotations they lack, unless annotated autoupdate=false.
import fp from 'fastify-plugin'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { GROUPS, RBAC } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import type { Caller, ResourceStore } from '../storage/resource-store.js'
import { bootstrapRead } from './loop.js'
import { APISERVER_USER } from '../resources/user-info.js'
import { uncovered, type PolicyRule } from '../auth/rbac/rules.js'
import {
  clusterRoleBindingObject, clusterRoleObject, DEFAULT_CLUSTER_ROLE_BINDINGS, DEFAULT_CLUSTER_ROLES
} from '../auth/rbac/bootstrap-policy.js'

const WRITE = { dryRun: false, fieldValidation: 'Strict' as const, force: false }

/** The object with what `expected` adds; undefined when nothing is missing or updates are off. */
function reconciled (existing: AnyObject, expected: AnyObject): AnyObject | undefined {
  if (existing.metadata?.annotations?.[RBAC.autoupdateAnnotation] === 'false') return undefined
  const next: AnyObject = structuredClone(existing)
  next.metadata.labels = { ...expected.metadata.labels, ...(existing.metadata.labels ?? {}) }
  next.metadata.annotations = { ...expected.metadata.annotations, ...(existing.metadata.annotations ?? {}) }
  if ('rules' in expected && expected.aggregationRule === undefined) {
    const have = (existing.rules ?? []) as PolicyRule[]
    const missing = (expected.rules as PolicyRule[]).filter(r => uncovered(have, [r]).length > 0)
    next.rules = [...have, ...missing]
  }
  if (expected.aggregationRule !== undefined) {
    const selectors = [...(existing.aggregationRule?.clusterRoleSelectors ?? [])]
    for (const s of expected.aggregationRule.clusterRoleSelectors) if (!selectors.some(x => isDeepStrictEqual(x, s))) selectors.push(s)
    next.aggregationRule = { clusterRoleSelectors: selectors }
  }
  if ('subjects' in expected) {
    const subjects = [...(existing.subjects ?? [])]
    for (const s of expected.subjects) if (!subjects.some((x: AnyObject) => x.kind === s.kind && x.name === s.name)) subjects.push(s)
    next.subjects = subjects
  }
  return isDeepStrictEqual(next, existing) ? undefined : next
}

export default fp(async function rbacBootstrap (fastify: FastifyInstance) {
  const caller = (): Caller => ({ user: APISERVER_USER, manager: 'rbac-bootstrap', warnings: [] })

  async function ensure (store: ResourceStore, expected: AnyObject): Promise<void> {
    const name = expected.metadata.name as string
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const found = await bootstrapRead(store, name, attempt)
        if (found === undefined) {
          await store.create('', expected, WRITE, caller())
          return
        }
        const next = reconciled(JSON.parse(found.json), expected)
        if (next !== undefined) await store.update('', name, () => next, { ...WRITE, subresource: '' }, caller())
        return
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 409)) throw err
      }
    }
  }

  fastify.health.addPostStartHook('rbac/bootstrap-roles', async () => {
    const roles = fastify.resources.find({ group: GROUPS.rbac, resource: 'clusterroles' })!
    const bindings = fastify.resources.find({ group: GROUPS.rbac, resource: 'clusterrolebindings' })!
    await Promise.all([roles.freshen(undefined), bindings.freshen(undefined)])
    for (const r of DEFAULT_CLUSTER_ROLES) await ensure(roles, clusterRoleObject(r))
    for (const b of DEFAULT_CLUSTER_ROLE_BINDINGS) await ensure(bindings, clusterRoleBindingObject(b))
  })
}, { name: 'controller:rbac-bootstrap', dependencies: ['rest', 'health'] })
