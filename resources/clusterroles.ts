// ClusterRole (rbac.authorization v1): cluster-wide rules, or the union of the ClusterRoles its
// aggregationRule selects (kept current by the aggregation controller).
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { AggregationRule, rulesField, validateAggregationRule, validateRules } from './rbac.js'

const schema = objectSchema(`${GROUPS.rbac}/v1`, 'ClusterRole', {
  rules: rulesField(),
  aggregationRule: Type.Optional(AggregationRule)
}, 'ClusterRole is a cluster-wide set of rules that bindings grant.', { rules: 2, aggregationRule: 3 })

export default defineResource({
  group: GROUPS.rbac,
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  singular: 'clusterrole',
  scope: 'Cluster',
  schema,
  nameRule: 'PathSegment',
  strategy: {
    // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    validate: (role) => [...validateRules(role.rules, false), ...validateAggregationRule(role.aggregationRule)]
  },
  example: {
    metadata: { name: 'secret-reader' },
    rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }]
  }
})
