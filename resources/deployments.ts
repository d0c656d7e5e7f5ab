// Deployment (apps/v1, namespaced): declarative updates of pods through ReplicaSets, rolled by
// a strategy (RollingUpdate within maxUnavailable and maxSurge, or Recreate). Defaults, rules
// and generation as the reference's apps/v1 defaults, ValidateDeployment and strategy: the
// generation also moves on annotation changes, which the controller copies to ReplicaSets.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, Int64, objectSchema, Timestamp } from './meta.js'
import { LabelSelector, MapList } from './core-types.js'
import { IntOrString } from './pod-types.js'
import { PodTemplateSpec } from './pod-template.js'
import { keepZero, message } from './protobuf.js'
import { scaleSubresource } from './scale.js'
import { labelSelectorText } from './label-selector.js'
import { labelSelectorCell, templateColumns } from './workload-columns.js'
import {
  collisionCountKept, defaultTemplateOf, terminatingReplicasGatedStatus, intOrPercentValue, isNotMoreThan100Percent, nonNegative, selectorImmutable,
  validatePositiveIntOrPercent, validateReplicaCounts, validateSelectedTemplate, workloadCreateWarnings, workloadUpdateWarnings
} from './workload-validation.js'

const opt = Type.Optional
const struct = { additionalProperties: false }
const timeOrNull = () => Type.Union([Timestamp(), Type.Null()])

const RollingUpdateDeployment = Type.Object({
  maxUnavailable: opt(IntOrString()),
  maxSurge: opt(IntOrString())
}, { ...struct, description: 'Spec to control the desired behavior of rolling update.', ...message('RollingUpdateDeployment', { maxUnavailable: 1, maxSurge: 2 }) })

const DeploymentCondition = Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastUpdateTime: opt(timeOrNull()),
  lastTransitionTime: opt(timeOrNull()),
  reason: opt(Type.String()),
  message: opt(Type.String())
}, { ...struct, description: 'DeploymentCondition describes the state of a deployment at a certain point.', ...message('DeploymentCondition', { type: 1, status: 2, lastUpdateTime: 6, lastTransitionTime: 7, reason: 4, message: 5 }) })

const schema = objectSchema('apps/v1', 'Deployment', {
  spec: opt(Type.Object({
    replicas: opt(Int32({ description: 'Number of desired pods. Defaults to 1.' })),
    selector: opt(LabelSelector),
    template: opt(PodTemplateSpec),
    strategy: opt(Type.Object({
      type: opt(Type.String({ description: 'Type of deployment. Can be "Recreate" or "RollingUpdate". Default is RollingUpdate.' })),
      rollingUpdate: opt(RollingUpdateDeployment)
    }, { ...struct, 'x-kubernetes-patch-strategy': 'retainKeys', description: 'DeploymentStrategy describes how to replace existing pods with new ones.', ...message('DeploymentStrategy', { type: 1, rollingUpdate: 2 }) })),
    minReadySeconds: opt(Int32()),
    revisionHistoryLimit: opt(Int32({ description: 'The number of old ReplicaSets to retain to allow rollback. Defaults to 10.' })),
    paused: opt(Type.Boolean()),
    progressDeadlineSeconds: opt(Int32({ description: 'The maximum time in seconds for a deployment to make progress before it is considered to be failed. Defaults to 600s.' }))
  }, { ...struct, description: 'DeploymentSpec is the specification of the desired behavior of the Deployment.', ...message('DeploymentSpec', { replicas: keepZero(1), selector: 2, template: 3, strategy: 4, minReadySeconds: 5, revisionHistoryLimit: keepZero(6), paused: 7, progressDeadlineSeconds: keepZero(9) }) })),
  status: opt(Type.Object({
    observedGeneration: opt(Int64()),
    replicas: opt(Int32()),
    updatedReplicas: opt(Int32()),
    readyReplicas: opt(Int32()),
    availableReplicas: opt(Int32()),
    unavailableReplicas: opt(Int32()),
    terminatingReplicas: opt(Int32({ description: 'Total number of terminating pods targeted by this deployment; behind the alpha gate DeploymentReplicaSetTerminatingReplicas, which is off.' })),
    conditions: opt(MapList(DeploymentCondition, ['type'])),
    collisionCount: opt(Int32())
  }, { ...struct, description: 'DeploymentStatus is the most recently observed status of the Deployment.', ...message('DeploymentStatus', { observedGeneration: 1, replicas: 2, updatedReplicas: 3, availableReplicas: 4, unavailableReplicas: 5, conditions: 6, readyReplicas: 7, collisionCount: keepZero(8), terminatingReplicas: keepZero(9) }) }))
}, 'Deployment enables declarative updates for Pods and ReplicaSets.', { spec: 2, status: 3 })

type Deployment = AnyObject

const STRATEGY_TYPES = ['Recreate', 'RollingUpdate']
const DEFAULT_SURGE_AND_UNAVAILABLE = '25%'

/** SetDefaults_Deployment, and the template's defaults as a Pod's. */
function setDefaults (d: Deployment): void {
  defaultTemplateOf(d)
  const spec = d.spec
  spec.replicas ??= 1
  spec.strategy ??= {}
  const strategy = spec.strategy
  if ((strategy.type ?? '') === '') strategy.type = 'RollingUpdate'
  if (strategy.type === 'RollingUpdate') {
    strategy.rollingUpdate ??= {}
    strategy.rollingUpdate.maxUnavailable ??= DEFAULT_SURGE_AND_UNAVAILABLE
    strategy.rollingUpdate.maxSurge ??= DEFAULT_SURGE_AND_UNAVAILABLE
  }
  spec.revisionHistoryLimit ??= 10
  spec.progressDeadlineSeconds ??= 600
}

/** ValidateRollingUpdateDeployment. */
function validateRollingUpdate (r: AnyObject, at: string): FieldError[] {
  const errors = [
    ...validatePositiveIntOrPercent(r.maxUnavailable, `${at}.maxUnavailable`),
    ...validatePositiveIntOrPercent(r.maxSurge, `${at}.maxSurge`)
  ]
  if (intOrPercentValue(r.maxUnavailable) === 0 && intOrPercentValue(r.maxSurge) === 0) {
    errors.push({ type: 'Invalid', field: `${at}.maxUnavailable`, value: r.maxUnavailable, detail: 'may not be 0 when `maxSurge` is 0' })
  }
  errors.push(...isNotMoreThan100Percent(r.maxUnavailable, `${at}.maxUnavailable`))
  return errors
}

/** ValidateDeploymentStrategy. */
function validateStrategy (strategy: AnyObject, at: string): FieldError[] {
  switch (strategy.type) {
    case 'Recreate':
      return strategy.rollingUpdate != null ? [{ type: 'Forbidden', field: `${at}.rollingUpdate`, detail: "may not be specified when strategy `type` is 'Recreate'" }] : []
    case 'RollingUpdate':
      return strategy.rollingUpdate == null
        ? [{ type: 'Required', field: `${at}.rollingUpdate`, detail: 'this should be defaulted and never be nil' }]
        : validateRollingUpdate(strategy.rollingUpdate, `${at}.rollingUpdate`)
    default:
      return [{ type: 'NotSupported', field: at, value: strategy, supported: STRATEGY_TYPES }]
  }
}

/** ValidateDeploymentSpec. */
function validateSpec (spec: AnyObject): FieldError[] {
  const errors: FieldError[] = [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...validateSelectedTemplate(spec, 'spec'),
    ...validateStrategy(spec.strategy ?? {}, 'spec.strategy'),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds')
  ]
  if (spec.revisionHistoryLimit != null) errors.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'))
  if (spec.progressDeadlineSeconds != null) {
    errors.push(...nonNegative(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'))
    if (spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
      errors.push({ type: 'Invalid', field: 'spec.progressDeadlineSeconds', value: spec.progressDeadlineSeconds, detail: 'must be greater than minReadySeconds' })
    }
  }
  return errors
}

/** ValidateDeploymentStatus: the counts a controller reports. */
function validateStatus (status: AnyObject | undefined): FieldError[] {
  return validateReplicaCounts(status,
    ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'terminatingReplicas', 'collisionCount'],
    ['updatedReplicas', 'readyReplicas', 'availableReplicas'])
}

export default defineResource({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  shortNames: ['deploy'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  // The status strategy keeps the labels as stored (its reset fields are spec and metadata.labels).
  subresources: {
    status: terminatingReplicasGatedStatus(['labels']),
    scale: scaleSubresource({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', selector: (d) => labelSelectorText(d.spec?.selector) })
  },
  strategy: {
    prepareForCreate (d) {
      setDefaults(d)
      // A new object's zero status, as the reference renders it.
      d.status = {}
    },
    prepareForUpdate (d, old) {
      setDefaults(d)
      if (d.metadata !== undefined && !isDeepStrictEqual(d.metadata.annotations ?? {}, old.metadata?.annotations ?? {})) d.metadata.generation = (old.metadata?.generation ?? 0) + 1
    },
    validate: (d) => [...validateSpec(d.spec ?? {}), ...validateStatus(d.status)],
    validateUpdate: (d, old) => [...selectorImmutable(d.spec, old.spec), ...collisionCountKept(d.status, old.status)],
    warningsOnCreate: (d) => workloadCreateWarnings(d, d.spec?.template),
    warningsOnUpdate: (d, old) => workloadUpdateWarnings(d, old, d.spec?.template)
  },
  podTemplate: (d) => d.spec?.template,
  columns: [
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', value: (d: Deployment) => `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}` },
    { name: 'Up-to-date', type: 'string', description: 'Total number of non-terminating pods targeted by this deployment that have the desired template spec.', value: (d: Deployment) => d.status?.updatedReplicas ?? 0 },
    { name: 'Available', type: 'string', description: 'Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment.', value: (d: Deployment) => d.status?.availableReplicas ?? 0 },
    AGE_COLUMN,
    ...templateColumns((d) => d.spec?.template),
    { name: 'Selector', type: 'string', priority: 1, description: "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.", value: (d: Deployment) => labelSelectorCell(d.spec?.selector) }
  ],
  example: {
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } }
    },
    status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }] }
  }
})
