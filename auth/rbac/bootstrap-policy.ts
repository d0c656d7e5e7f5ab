// The default roles and bindings every cluster has, as the reference server's bootstrap policy
// defines them (for the kinds and endpoints this server has, plus the common workload kinds).
import type { AnyObject } from '../../resources/define.js'
import { CONTROLLER_USER, GROUPS, group, LABELS, RBAC, SIGNERS } from '../../resources/naming.js'
import { AUTHENTICATED_GROUP, PRIVILEGED_GROUP } from '../../resources/user-info.js'
import { UNAUTHENTICATED_GROUP } from '../authenticators/anonymous.js'
import type { PolicyRule } from './rules.js'

const READ = ['get', 'list', 'watch']
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update']
const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources })
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs })

const NODE_GROUP = 'system:nodes'
const BOOTSTRAPPERS_GROUP = 'system:bootstrappers'
const MONITORING_GROUP = 'system:monitoring'
const CSR_ROLE = (usage: string): string => `system:${GROUPS.certificates}:certificatesigningrequests:${usage}`
const CERTIFICATE_CONTROLLER_ROLE = 'system:controller:certificate-controller'
const WORKLOAD_GROUPS = ['apps', 'batch', 'autoscaling', 'policy', group('networking'), group('discovery')]

const aggregated = (role: 'admin' | 'edit' | 'view'): AnyObject => ({
  clusterRoleSelectors: [{ matchLabels: { [RBAC.aggregateTo(role)]: 'true' } }]
})

export interface DefaultClusterRole {
  name: string
  labels?: Record<string, string>
  rules?: PolicyRule[]
  aggregationRule?: AnyObject
}

export const DEFAULT_CLUSTER_ROLES: readonly DefaultClusterRole[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  { name: 'admin', aggregationRule: aggregated('admin') },
  { name: 'edit', labels: { [RBAC.aggregateTo('admin')]: 'true' }, aggregationRule: aggregated('edit') },
  { name: 'view', labels: { [RBAC.aggregateTo('edit')]: 'true' }, aggregationRule: aggregated('view') },
  {
    name: 'system:aggregate-to-admin',
    labels: { [RBAC.aggregateTo('admin')]: 'true' },
    rules: [
      rule(['create'], [GROUPS.authorization], ['localsubjectaccessreviews']),
      rule([...READ, ...WRITE], [GROUPS.rbac], ['rolebindings', 'roles'])
    ]
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { [RBAC.aggregateTo('edit')]: 'true' },
    rules: [
      rule(READ, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [''], ['pods/eviction']),
      rule(WRITE, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy',
        'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(WRITE, WORKLOAD_GROUPS, ['*'])
    ]
  },
  {
    name: 'system:aggregate-to-view',
    labels: { [RBAC.aggregateTo('view')]: 'true' },
    rules: [
      rule(READ, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status',
        'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      rule(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status',
        'replicationcontrollers/status', 'pods/log']),
      rule(READ, [''], ['namespaces']),
      rule(READ, [GROUPS.discovery], ['endpointslices']),
      rule(READ, WORKLOAD_GROUPS, ['*'])
    ]
  },
  {
    name: 'system:basic-user',
    rules: [
      rule(['create'], [GROUPS.authorization], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], [GROUPS.authentication], ['selfsubjectreviews'])
    ]
  },
  {
    name: 'system:discovery',
    rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'])]
  },
  { name: 'system:public-info-viewer', rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])] },
  {
    name: 'system:monitoring',
    rules: [urls(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])]
  },
  {
    name: 'system:auth-delegator',
    rules: [rule(['create'], [GROUPS.authentication], ['tokenreviews']), rule(['create'], [GROUPS.authorization], ['subjectaccessreviews'])]
  },
  {
    name: 'system:node',
    rules: [
      rule(['create'], [GROUPS.authentication], ['tokenreviews']),
      rule(['create'], [GROUPS.authorization], ['subjectaccessreviews', 'localsubjectaccessreviews']),
      rule(READ, [''], ['services']),
      rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
      rule(['update', 'patch'], [''], ['nodes/status']),
      rule(['update', 'patch', 'delete'], [''], ['nodes']),
      rule(['create', 'update', 'patch'], ['', group('events')], ['events']),
      rule(READ, [''], ['pods']),
      rule(['create', 'delete'], [''], ['pods']),
      rule(['update', 'patch'], [''], ['pods/status']),
      rule(['create'], [''], ['pods/eviction']),
      rule(READ, [''], ['secrets', 'configmaps']),
      rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['get'], [''], ['endpoints']),
      rule(['create', 'get', 'list', 'watch'], [GROUPS.certificates], ['certificatesigningrequests']),
      rule(['get', 'create', 'update', 'patch', 'delete'], [group('coordination')], ['leases']),
      rule(['get'], [GROUPS.storage], ['volumeattachments']),
      rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(READ, [GROUPS.storage], ['csidrivers']),
      rule(['create', 'delete', 'get', 'patch', 'update'], [GROUPS.storage], ['csinodes']),
      rule(READ, [group('node')], ['runtimeclasses'])
    ]
  },
  { name: 'system:node-bootstrapper', rules: [rule(['create', 'get', 'list', 'watch'], [GROUPS.certificates], ['certificatesigningrequests'])] },
  { name: CSR_ROLE('nodeclient'), rules: [rule(['create'], [GROUPS.certificates], ['certificatesigningrequests/nodeclient'])] },
  { name: CSR_ROLE('selfnodeclient'), rules: [rule(['create'], [GROUPS.certificates], ['certificatesigningrequests/selfnodeclient'])] },
  {
    // The in-process certificate controllers (signing, auto-approval, cleaning) act as the controller manager.
    name: CERTIFICATE_CONTROLLER_ROLE,
    rules: [
      rule(['delete', 'get', 'list', 'watch'], [GROUPS.certificates], ['certificatesigningrequests']),
      rule(['update'], [GROUPS.certificates], ['certificatesigningrequests/approval', 'certificatesigningrequests/status']),
      { verbs: ['approve'], apiGroups: [GROUPS.certificates], resources: ['signers'], resourceNames: [SIGNERS.apiserverClientSvclet] },
      { verbs: ['sign'], apiGroups: [GROUPS.certificates], resources: ['signers'], resourceNames: [SIGNERS.apiserverClient, SIGNERS.apiserverClientSvclet, SIGNERS.svcletServing] },
      rule(['create'], [GROUPS.authorization], ['subjectaccessreviews'])
    ]
  }
]

export interface DefaultClusterRoleBinding { name: string, role: string, groups?: string[], users?: string[] }

export const DEFAULT_CLUSTER_ROLE_BINDINGS: readonly DefaultClusterRoleBinding[] = [
  { name: 'cluster-admin', role: 'cluster-admin', groups: [PRIVILEGED_GROUP] },
  { name: 'system:monitoring', role: 'system:monitoring', groups: [MONITORING_GROUP] },
  { name: 'system:discovery', role: 'system:discovery', groups: [AUTHENTICATED_GROUP] },
  { name: 'system:basic-user', role: 'system:basic-user', groups: [AUTHENTICATED_GROUP] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', groups: [AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP] },
  // Nodes are authorized by the Node mode; upstream keeps this binding without subjects.
  { name: 'system:node', role: 'system:node' },
  { name: 'system:node-bootstrapper', role: 'system:node-bootstrapper', groups: [BOOTSTRAPPERS_GROUP] },
  { name: CSR_ROLE('nodeclient'), role: CSR_ROLE('nodeclient'), groups: [BOOTSTRAPPERS_GROUP] },
  { name: CSR_ROLE('selfnodeclient'), role: CSR_ROLE('selfnodeclient'), groups: [NODE_GROUP] },
  { name: CERTIFICATE_CONTROLLER_ROLE, role: CERTIFICATE_CONTROLLER_ROLE, users: [CONTROLLER_USER.username] }
]

const metadata = (name: string, labels: Record<string, string> = {}): AnyObject => ({
  name,
  labels: { [LABELS.bootstrapping]: RBAC.bootstrappingValue, ...labels },
  annotations: { [RBAC.autoupdateAnnotation]: 'true' }
})

export const clusterRoleObject = (r: DefaultClusterRole): AnyObject => {
  const obj: AnyObject = { metadata: metadata(r.name, r.labels), rules: r.rules ?? [] }
  if (r.aggregationRule !== undefined) obj.aggregationRule = r.aggregationRule
  return obj
}

export const clusterRoleBindingObject = (b: DefaultClusterRoleBinding): AnyObject => ({
  metadata: metadata(b.name),
  roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: b.role },
  subjects: [
    ...(b.groups ?? []).map(name => ({ kind: 'Group', apiGroup: GROUPS.rbac, name })),
    ...(b.users ?? []).map(name => ({ kind: 'User', apiGroup: GROUPS.rbac, name }))
  ]
})
