// Role (rbac.authorization v1): rules that apply within one namespace.
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { rulesField, validateRules } from './rbac.js'

const schema = objectSchema(`${GROUPS.rbac}/v1`, 'Role', {
  rules: rulesField()
}, 'Role is a namespaced set of rules that a RoleBinding grants.', { rules: 2 })

export default defineResource({
  group: GROUPS.rbac,
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  singular: 'role',
  scope: 'Namespaced',
  schema,
  nameRule: 'PathSegment',
  strategy: {
    // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    validate: (role) => validateRules(role.rules, true)
  },
  example: {
    metadata: { name: 'pod-reader' },
    rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]
  }
})
