// ClusterRoleBinding (rbac.authorization v1): grants a ClusterRole cluster-wide; roleRef never changes.
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { canonicalRoleRef, defaultSubjects, RoleRef, subjectsField, validateRoleRef, validateRoleRefUnchanged, validateSubjects } from './rbac.js'

const schema = objectSchema(`${GROUPS.rbac}/v1`, 'ClusterRoleBinding', {
  subjects: subjectsField(),
  roleRef: Type.Optional(RoleRef)
}, 'ClusterRoleBinding grants the rules of a ClusterRole in every namespace.')

export default defineResource({
  group: GROUPS.rbac,
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  scope: 'Cluster',
  schema,
  nameRule: 'PathSegment',
  generation: false,
  strategy: {
    prepareForCreate: (b) => { defaultSubjects(b.subjects); canonicalRoleRef(b.roleRef) },
    prepareForUpdate: (b) => { defaultSubjects(b.subjects); canonicalRoleRef(b.roleRef) },
    validate: (b) => [...validateRoleRef(b.roleRef, ['ClusterRole']), ...validateSubjects(b.subjects, false)],
    validateUpdate: (b, old) => validateRoleRefUnchanged(b.roleRef, old.roleRef)
  },
  columns: [
    { name: 'Role', type: 'string', value: (b) => `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}` },
    { name: 'Users', type: 'string', priority: 1, value: (b) => (b.subjects ?? []).filter(s => s.kind === 'User').map(s => s.name).join(', ') },
    { name: 'Groups', type: 'string', priority: 1, value: (b) => (b.subjects ?? []).filter(s => s.kind === 'Group').map(s => s.name).join(', ') },
    { name: 'ServiceAccounts', type: 'string', priority: 1, value: (b) => (b.subjects ?? []).filter(s => s.kind === 'ServiceAccount').map(s => `${s.namespace ?? ''}/${s.name}`).join(', ') }
  ]
})
