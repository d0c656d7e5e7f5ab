// ReplicaSet (apps/v1, namespaced): keeps `replicas` pods of its template running, the pods its
// label selector selects. Defaults, rules and strategy as the reference's apps/v1 ones.
import { Type } from '@sinclair/typebox'
import { defineResource, type AnyObject } from './define.js'
import { AGE_COLUMN, Int32, Int64, objectSchema, Timestamp } from './meta.js'
import { LabelSelector, MapList } from './core-types.js'
import { PodTemplateSpec } from './pod-template.js'
import { keepZero, message } from './protobuf.js'
import { scaleSubresource } from './scale.js'
import { labelSelectorText } from './label-selector.js'
import { labelSelectorCell, templateColumns } from './workload-columns.js'
import {
  defaultTemplateOf, terminatingReplicasGatedStatus, nonNegative, selectorImmutable, validateReplicaCounts, validateSelectedTemplate,
  workloadCreateWarnings, workloadUpdateWarnings
} from './workload-validation.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const ReplicaSetCondition = Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
  reason: opt(Type.String()),
  message: opt(Type.String())
}, { ...struct, description: 'ReplicaSetCondition describes the state of a replica set at a certain point.', ...message('ReplicaSetCondition', { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 }) })

const schema = objectSchema('apps/v1', 'ReplicaSet', {
  spec: opt(Type.Object({
    replicas: opt(Int32({ description: 'Replicas is the number of desired pods. Defaults to 1.' })),
    minReadySeconds: opt(Int32()),
    selector: opt(LabelSelector),
    template: opt(PodTemplateSpec)
  }, { ...struct, description: 'ReplicaSetSpec is the specification of a ReplicaSet.', ...message('ReplicaSetSpec', { replicas: keepZero(1), selector: 2, template: 3, minReadySeconds: 4 }) })),
  status: opt(Type.Object({
    replicas: opt(Int32()),
    fullyLabeledReplicas: opt(Int32()),
    readyReplicas: opt(Int32()),
    availableReplicas: opt(Int32()),
    terminatingReplicas: opt(Int32({ description: 'The number of terminating pods for this replica set; behind the alpha gate DeploymentReplicaSetTerminatingReplicas, which is off.' })),
    observedGeneration: opt(Int64()),
    conditions: opt(MapList(ReplicaSetCondition, ['type']))
  }, { ...struct, description: 'ReplicaSetStatus represents the current status of a ReplicaSet.', ...message('ReplicaSetStatus', { replicas: keepZero(1), fullyLabeledReplicas: 2, observedGeneration: 3, readyReplicas: 4, availableReplicas: 5, conditions: 6, terminatingReplicas: keepZero(7) }) }))
}, 'ReplicaSet ensures that a specified number of pod replicas are running at any given time.', { spec: 2, status: 3 })

type ReplicaSet = AnyObject

/** SetDefaults_ReplicaSet, and the template's defaults as a Pod's. */
function setDefaults (rs: ReplicaSet): void {
  defaultTemplateOf(rs)
  rs.spec.replicas ??= 1
}

/** ValidateReplicaSetSpec and ValidateReplicaSetStatus. */
function validate (rs: ReplicaSet) {
  const spec = rs.spec ?? {}
  return [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...validateSelectedTemplate(spec, 'spec'),
    ...validateReplicaCounts(rs.status,
      ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'terminatingReplicas', 'observedGeneration'],
      ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'])
  ]
}

export default defineResource({
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  plural: 'replicasets',
  singular: 'replicaset',
  shortNames: ['rs'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  subresources: {
    status: terminatingReplicasGatedStatus(),
    scale: scaleSubresource({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', selector: (rs) => labelSelectorText(rs.spec?.selector) })
  },
  strategy: {
    prepareForCreate (rs) {
      setDefaults(rs)
      // A new object's zero status, as the reference renders it (replicas has no omitempty).
      rs.status = { replicas: 0 }
    },
    prepareForUpdate: (rs) => { setDefaults(rs) },
    validate,
    validateUpdate: (rs, old) => selectorImmutable(rs.spec, old.spec),
    warningsOnCreate: (rs) => workloadCreateWarnings(rs, rs.spec?.template),
    warningsOnUpdate: (rs, old) => workloadUpdateWarnings(rs, old, rs.spec?.template)
  },
  podTemplate: (rs) => rs.spec?.template,
  columns: [
    { name: 'Desired', type: 'integer', description: 'Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset', value: (rs: ReplicaSet) => rs.spec?.replicas ?? 0 },
    { name: 'Current', type: 'integer', description: 'Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset', value: (rs: ReplicaSet) => rs.status?.replicas ?? 0 },
    { name: 'Ready', type: 'integer', description: 'The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.', value: (rs: ReplicaSet) => rs.status?.readyReplicas ?? 0 },
    AGE_COLUMN,
    ...templateColumns((rs) => rs.spec?.template),
    { name: 'Selector', type: 'string', priority: 1, description: "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", value: (rs: ReplicaSet) => labelSelectorCell(rs.spec?.selector) }
  ],
  fieldSelectors: { 'status.replicas': (rs: ReplicaSet) => String(rs.status?.replicas ?? 0) },
  example: {
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } }
    },
    status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 }
  }
})
