// ClusterRoleBinding (rbac.authorization v1): grants a ClusterRole cluster-wide; roleRef never changes.
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { BINDING_COLUMNS, bindingStrategy, RoleRef, subjectsField } from './rbac.js'

const schema = objectSchema(`${GROUPS.rbac}/v1`, 'ClusterRoleBinding', {
  subjects: subjectsField(),
  roleRef: Type.Optional(RoleRef)
}, 'ClusterRoleBinding grants the rules of a ClusterRole in every namespace.', { subjects: 2, roleRef: 3 })

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
  strategy: bindingStrategy(['ClusterRole'], false),
  columns: BINDING_COLUMNS,
  example: {
    metadata: { name: 'read-secrets-global' },
    subjects: [{ kind: 'Group', name: 'managers', apiGroup: GROUPS.rbac }],
    roleRef: { kind: 'ClusterRole', name: 'secret-reader', apiGroup: GROUPS.rbac }
  }
})
