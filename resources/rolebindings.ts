// RoleBinding (rbac.authorization v1): grants a Role, or a ClusterRole's rules within this
// namespace only, to subjects; roleRef never changes.
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { Type } from '@sinclair/typebox'
import { BINDING_COLUMNS, bindingStrategy, RoleRef, subjectsField } from './rbac.js'

const schema = objectSchema(`${GROUPS.rbac}/v1`, 'RoleBinding', {
  subjects: subjectsField(),
  roleRef: Type.Optional(RoleRef)
}, 'RoleBinding grants the rules of a Role or ClusterRole within its namespace.', { subjects: 2, roleRef: 3 })

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
  strategy: bindingStrategy(['Role', 'ClusterRole'], true),
  columns: BINDING_COLUMNS,
  example: {
    metadata: { name: 'read-pods' },
    subjects: [{ kind: 'User', name: 'jane', apiGroup: GROUPS.rbac }],
    roleRef: { kind: 'Role', name: 'pod-reader', apiGroup: GROUPS.rbac }
  }
})
