// RoleBinding (rbac.authorization v1): grants a Role, or a ClusterRole's rules within this
// namespace only, to subjects; roleRef never changes.
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { Type } from '@sinclair/typebox'
import { canonicalRoleRef, defaultSubjects, RoleRef, subjectsField, validateRoleRef, validateRoleRefUnchanged, validateSubjects } from './rbac.js'

const schema = objectSchema(`${GROUPS.rbac}/v1`, 'RoleBinding', {
  subjects: subjectsField(),
  roleRef: Type.Optional(RoleRef)
}, 'RoleBinding grants the rules of a Role or ClusterRole within its namespace.')

export default defineResource({
  group: GROUPS.rbac,
  version: 'v1',
  kind: 'RoleBinding',
  plural: 'rolebindings',
  singular: 'rolebinding',
  scope: 'Namespaced',
  schema,
  nameRule: 'PathSegment',
  generation: false,
  strategy: {
    prepareForCreate: (b) => { defaultSubjects(b.subjects); canonicalRoleRef(b.roleRef) },
    prepareForUpdate: (b) => { defaultSubjects(b.subjects); canonicalRoleRef(b.roleRef) },
    validate: (b) => [...validateRoleRef(b.roleRef, ['Role', 'ClusterRole']), ...validateSubjects(b.subjects, true)],
    validateUpdate: (b, old) => validateRoleRefUnchanged(b.roleRef, old.roleRef)
  },
  columns: [
    { name: 'Role', type: 'string', value: (b) => `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}` },
    { name: 'Users', type: 'string', priority: 1, value: (b) => (b.subjects ?? []).filter(s => s.kind === 'User').map(s => s.name).join(', ') },
    { name: 'Groups', type: 'string', priority: 1, value: (b) => (b.subjects ?? []).filter(s => s.kind === 'Group').map(s => s.name).join(', ') },
    { name: 'ServiceAccounts', type: 'string', priority: 1, value: (b) => (b.subjects ?? []).filter(s => s.kind === 'ServiceAccount').map(s => `${s.namespace ?? ''}/${s.name}`).join(', ') }
  ]
})
