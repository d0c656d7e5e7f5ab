// The RBAC rule resolver: which rules a user holds in a namespace, answered from in-memory
// indexes of roles and bindings that are rebuilt from the watch caches after they change, so
// authorizing a request costs no SQL.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { UserInfo } from '../../resources/user-info.js'
import type { AnyObject } from '../../resources/define.js'
import { GROUPS } from '../../resources/naming.js'
import type { ResourceStore } from '../../storage/resource-store.js'
import { CacheIndex } from '../../storage/cache-index.js'
import type { PolicyRule } from './rules.js'

export interface RoleRef { apiGroup: string, kind: string, name: string }

/** Where a rule comes from: the binding and the role it references. */
export interface RuleSource {
  binding: { kind: 'RoleBinding' | 'ClusterRoleBinding', namespace: string, name: string }
  roleRef: RoleRef
  /** The subject that matched: `User "alice"` or `Group "system:masters"`. */
  subject: string
}

export interface RbacResolver {
  /**
   * Calls `visit` with each rule granted to the user in `namespace` (cluster-wide rules first;
   * '' is cluster-wide only) until it returns true; returns whether one did. Missing roles are
   * reported through `onError` as the reference server words them.
   */
  visitRules (user: UserInfo, namespace: string, visit: (rule: PolicyRule, source: RuleSource) => boolean, onError?: (message: string) => void): boolean
  /** Every rule granted to the user in a namespace, and the roles that could not be found. */
  rulesFor (user: UserInfo, namespace: string): { rules: PolicyRule[], errors: string[] }
  /** The rules a roleRef resolves to from a binding in `namespace`; undefined when the role is missing. */
  roleRefRules (ref: RoleRef, namespace: string): PolicyRule[] | undefined
  /** Waits until the caches hold every write committed so far (read-your-writes before a denial). */
  catchUp (): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance { rbac: RbacResolver }
}

interface Binding { kind: 'RoleBinding' | 'ClusterRoleBinding', namespace: string, name: string, roleRef: RoleRef }

interface Index {
  roles: Map<string, PolicyRule[]>
  clusterRoles: Map<string, PolicyRule[]>
  /** subject key → cluster role bindings */
  clusterBindings: Map<string, Binding[]>
  /** namespace → subject key → role bindings */
  roleBindings: Map<string, Map<string, Binding[]>>
}

const KINDS = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'] as const

const userKey = (name: string): string => `User:${name}`
const groupKey = (name: string): string => `Group:${name}`

/** The index key of a subject as a binding in `namespace` sees it; undefined when it can never match. */
function subjectKey (s: AnyObject, namespace: string): string | undefined {
  switch (s.kind) {
    case 'User': return userKey(s.name)
    case 'Group': return groupKey(s.name)
    case 'ServiceAccount': {
      const ns = typeof s.namespace === 'string' && s.namespace !== '' ? s.namespace : namespace
      return ns === '' ? undefined : userKey(`system:serviceaccount:${ns}:${s.name}`)
    }
  }
  return undefined
}

const rulesOf = (role: AnyObject): PolicyRule[] => Array.isArray(role.rules) ? role.rules as PolicyRule[] : []

function addBinding (into: Map<string, Binding[]>, b: AnyObject, kind: Binding['kind']): void {
  const namespace = b.metadata?.namespace ?? ''
  const binding: Binding = { kind, namespace, name: b.metadata?.name ?? '', roleRef: b.roleRef }
  for (const s of (b.subjects ?? []) as AnyObject[]) {
    const key = subjectKey(s, namespace)
    if (key === undefined) continue
    const list = into.get(key)
    if (list === undefined) into.set(key, [binding])
    else if (!list.includes(binding)) list.push(binding)
  }
}

export default fp(async function rbacResolver (fastify: FastifyInstance) {
  const store = (plural: typeof KINDS[number]): ResourceStore | undefined => fastify.resources.find({ group: GROUPS.rbac, resource: plural })
  const objects = (plural: typeof KINDS[number]): AnyObject[] => store(plural)?.cachedObjects() ?? []

  function build (): Index {
    const next: Index = { roles: new Map(), clusterRoles: new Map(), clusterBindings: new Map(), roleBindings: new Map() }
    for (const r of objects('roles')) next.roles.set(`${r.metadata.namespace}/${r.metadata.name}`, rulesOf(r))
    for (const r of objects('clusterroles')) next.clusterRoles.set(r.metadata.name, rulesOf(r))
    for (const b of objects('clusterrolebindings')) addBinding(next.clusterBindings, b, 'ClusterRoleBinding')
    for (const b of objects('rolebindings')) {
      const ns = b.metadata.namespace as string
      let byNs = next.roleBindings.get(ns)
      if (byNs === undefined) next.roleBindings.set(ns, byNs = new Map())
      addBinding(byNs, b, 'RoleBinding')
    }
    return next
  }

  const index = new CacheIndex({
    sources: () => KINDS.map(store).filter((s): s is ResourceStore => s !== undefined),
    build,
    currentRevision: async () => await fastify.storage.currentRevision(),
    onWatchEnded: (err, s) => { fastify.log.warn({ err, prefix: s.prefix }, 'rbac index watch ended; resubscribing') }
  })
  const current = (): Index => index.current()

  function refRules (idx: Index, ref: RoleRef, namespace: string): PolicyRule[] | undefined {
    if (ref?.apiGroup !== GROUPS.rbac) return undefined
    if (ref.kind === 'ClusterRole') return idx.clusterRoles.get(ref.name)
    if (ref.kind === 'Role' && namespace !== '') return idx.roles.get(`${namespace}/${ref.name}`)
    return undefined
  }

  const missingText = (ref: RoleRef): string =>
    `${ref.kind === 'Role' ? 'role' : 'clusterrole'}.${GROUPS.rbac} "${ref.name}" not found`

  const resolver: RbacResolver = {
    visitRules (user, namespace, visit, onError) {
      const idx = current()
      const keys = [userKey(user.username), ...user.groups.map(groupKey)]
      const scopes: Array<Map<string, Binding[]> | undefined> = [idx.clusterBindings]
      if (namespace !== '') scopes.push(idx.roleBindings.get(namespace))
      const seen = new Set<Binding>()
      for (const scope of scopes) {
        if (scope === undefined) continue
        for (const key of keys) {
          for (const b of scope.get(key) ?? []) {
            if (seen.has(b)) continue
            seen.add(b)
            const rules = refRules(idx, b.roleRef, b.namespace)
            if (rules === undefined) { onError?.(missingText(b.roleRef)); continue }
            const [subjectKind, subjectName] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)]
            const source: RuleSource = { binding: { kind: b.kind, namespace: b.namespace, name: b.name }, roleRef: b.roleRef, subject: `${subjectKind} ${JSON.stringify(subjectName)}` }
            for (const rule of rules) if (visit(rule, source)) return true
          }
        }
      }
      return false
    },
    rulesFor (user, namespace) {
      const rules: PolicyRule[] = []
      const errors: string[] = []
      resolver.visitRules(user, namespace, (rule) => { rules.push(rule); return false }, (e) => errors.push(e))
      return { rules, errors }
    },
    roleRefRules: (ref, namespace) => refRules(current(), ref, namespace),
    catchUp: async () => { await index.catchUp() }
  }
  fastify.decorate('rbac', resolver)

  fastify.addHook('onReady', async () => { await index.start() })
  fastify.addHook('onClose', async () => { index.stop() })
}, { name: 'rbac-resolver' })
