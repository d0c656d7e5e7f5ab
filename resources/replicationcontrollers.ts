// ReplicationController (core v1, namespaced): the ReplicaSet's predecessor, its selector a
// plain label map, defaulted (with the controller's own labels) from its template's labels.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject } from './define.js'
import { AGE_COLUMN, Int32, Int64, objectSchema, StringMap, Timestamp } from './meta.js'
import { MapList } from './core-types.js'
import { defaultPodTemplate, PodTemplateSpec } from './pod-template.js'
import { keepZero, message } from './protobuf.js'
import { scaleSubresource } from './scale.js'
import { labelSelectorText } from './label-selector.js'
import { labelMapCell, templateColumns } from './workload-columns.js'
import { nonNegative, validateControllerTemplate, validateReplicaCounts, workloadCreateWarnings, workloadUpdateWarnings } from './workload-validation.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const ReplicationControllerCondition = Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
  reason: opt(Type.String()),
  message: opt(Type.String())
}, { ...struct, description: 'ReplicationControllerCondition describes the state of a replication controller at a certain point.', ...message('ReplicationControllerCondition', { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 }) })

const schema = objectSchema('v1', 'ReplicationController', {
  spec: opt(Type.Object({
    replicas: opt(Int32({ description: 'Replicas is the number of desired replicas. Defaults to 1.' })),
    minReadySeconds: opt(Int32()),
    selector: opt(StringMap({ 'x-kubernetes-map-type': 'atomic', description: 'A label query over pods; defaulted to the labels of the pod template when empty.' })),
    template: opt(PodTemplateSpec)
  }, { ...struct, description: 'ReplicationControllerSpec is the specification of a replication controller.', ...message('ReplicationControllerSpec', { replicas: keepZero(1), minReadySeconds: 4, selector: 2, template: 3 }) })),
  status: opt(Type.Object({
    replicas: opt(Int32()),
    fullyLabeledReplicas: opt(Int32()),
    readyReplicas: opt(Int32()),
    availableReplicas: opt(Int32()),
    observedGeneration: opt(Int64()),
    conditions: opt(MapList(ReplicationControllerCondition, ['type']))
  }, { ...struct, description: 'ReplicationControllerStatus represents the current status of a replication controller.', ...message('ReplicationControllerStatus', { replicas: keepZero(1), fullyLabeledReplicas: 2, readyReplicas: 4, availableReplicas: 5, observedGeneration: 3, conditions: 6 }) }))
}, 'ReplicationController represents the configuration of a replication controller.', { spec: 2, status: 3 })

type ReplicationController = AnyObject

/**
 * SetDefaults_ReplicationController: a template's labels (when it has any map, even empty) fill
 * an empty selector and empty controller labels; replicas 1; the template as a Pod's.
 */
function setDefaults (rc: ReplicationController): void {
  rc.spec ??= {}
  const spec = rc.spec
  if (spec.template != null) defaultPodTemplate(spec.template)
  const labels = spec.template?.metadata?.labels
  if (labels != null) {
    if (Object.keys(spec.selector ?? {}).length === 0) spec.selector = { ...labels }
    rc.metadata ??= {}
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = { ...labels }
  }
  spec.replicas ??= 1
}

/** ValidateReplicationControllerSpec and ValidateReplicationControllerStatus. */
function validate (rc: ReplicationController) {
  const spec = rc.spec ?? {}
  return [
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...(Object.keys(spec.selector ?? {}).length === 0 ? [{ type: 'Required' as const, field: 'spec.selector' }] : []),
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...validateControllerTemplate(spec.template, spec.selector, spec.replicas ?? 0, 'spec.template'),
    ...validateReplicaCounts(rc.status,
      ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
      ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'])
  ]
}

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'ReplicationController',
  plural: 'replicationcontrollers',
  singular: 'replicationcontroller',
  shortNames: ['rc'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  // Its dependents outlive it unless a delete says otherwise: core v1's default since before
  // the garbage collector, kept for compatibility.
  defaultPropagationPolicy: 'Orphan',
  subresources: {
    status: statusSubresource(),
    scale: scaleSubresource({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', selector: (rc) => labelSelectorText({ matchLabels: rc.spec?.selector ?? {} }) })
  },
  strategy: {
    prepareForCreate (rc) {
      setDefaults(rc)
      // A new object's zero status, as the reference renders it (replicas has no omitempty).
      rc.status = { replicas: 0 }
    },
    prepareForUpdate: (rc) => { setDefaults(rc) },
    validate,
    warningsOnCreate: (rc) => workloadCreateWarnings(rc, rc.spec?.template),
    // The reference warns here about the stored template, not the new one.
    warningsOnUpdate: (rc, old) => workloadUpdateWarnings(rc, old, old.spec?.template)
  },
  podTemplate: (rc) => rc.spec?.template,
  columns: [
    { name: 'Desired', type: 'integer', description: 'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller', value: (rc: ReplicationController) => rc.spec?.replicas ?? 0 },
    { name: 'Current', type: 'integer', description: 'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller', value: (rc: ReplicationController) => rc.status?.replicas ?? 0 },
    { name: 'Ready', type: 'integer', description: 'The number of ready replicas for this replication controller.', value: (rc: ReplicationController) => rc.status?.readyReplicas ?? 0 },
    AGE_COLUMN,
    ...templateColumns((rc) => rc.spec?.template),
    { name: 'Selector', type: 'string', priority: 1, description: 'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', value: (rc: ReplicationController) => labelMapCell(rc.spec?.selector) }
  ],
  fieldSelectors: { 'status.replicas': (rc: ReplicationController) => String(rc.status?.replicas ?? 0) },
  example: {
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { app: 'web' },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } }
    },
    status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 }
  }
})
