// DaemonSet (apps/v1): one pod from its template on every node that fits it, replaced node by
// node on template changes (RollingUpdate, by maxUnavailable or maxSurge) or when deleted
// (OnDelete). Its selector is fixed once created.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, Int64, objectSchema, Timestamp } from './meta.js'
import { immutable, LabelSelector, MapList, validateLabelSelector } from './core-types.js'
import { IntOrString } from './pod-types.js'
import { defaultPodTemplate, PodTemplateSpec, selectorMismatch, validatePodTemplate } from './pod-template.js'
import { labelSelectorText } from './label-selector.js'
import { podSpecWarnings } from './deprecation-warnings.js'
import { keepZero, message } from './protobuf.js'
import { nonNegativeCounts, sameJson, selectorConvertible, selectorSelects } from './set-validation.js'
import { collisionCountKept, intOrPercentValue, isNotMoreThan100Percent, nonNegative, runnableTemplate, validatePositiveIntOrPercent } from './workload-validation.js'
import { templateColumns } from './workload-columns.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const schema = objectSchema('apps/v1', 'DaemonSet', {
  spec: opt(Type.Object({
    selector: opt(LabelSelector),
    template: opt(PodTemplateSpec),
    updateStrategy: opt(Type.Object({
      type: opt(Type.String({ description: 'RollingUpdate (default) or OnDelete.' })),
      rollingUpdate: opt(Type.Object({
        maxUnavailable: opt(IntOrString()),
        maxSurge: opt(IntOrString())
      }, { ...struct, ...message('RollingUpdateDaemonSet', { maxUnavailable: 1, maxSurge: 2 }) }))
    }, { ...struct, ...message('DaemonSetUpdateStrategy', { type: 1, rollingUpdate: 2 }) })),
    minReadySeconds: opt(Int32()),
    revisionHistoryLimit: opt(Int32())
  }, { ...struct, description: 'DaemonSetSpec is the specification of a daemon set.', ...message('DaemonSetSpec', {
    selector: 1,
    template: 2,
    updateStrategy: 3,
    minReadySeconds: 4,
    revisionHistoryLimit: keepZero(6)
  }) })),
  status: opt(Type.Object({
    currentNumberScheduled: opt(Int32()),
    numberMisscheduled: opt(Int32()),
    desiredNumberScheduled: opt(Int32()),
    numberReady: opt(Int32()),
    observedGeneration: opt(Int64()),
    updatedNumberScheduled: opt(Int32()),
    numberAvailable: opt(Int32()),
    numberUnavailable: opt(Int32()),
    collisionCount: opt(Int32()),
    conditions: opt(MapList(Type.Object({
      type: Type.String(),
      status: Type.String(),
      lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
      reason: opt(Type.String()),
      message: opt(Type.String())
    }, { ...struct, ...message('DaemonSetCondition', { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 }) }), ['type']))
  }, { ...struct, ...message('DaemonSetStatus', {
    currentNumberScheduled: keepZero(1),
    numberMisscheduled: keepZero(2),
    desiredNumberScheduled: keepZero(3),
    numberReady: keepZero(4),
    observedGeneration: 5,
    updatedNumberScheduled: 6,
    numberAvailable: 7,
    numberUnavailable: 8,
    collisionCount: keepZero(9),
    conditions: 10
  }) }))
}, 'DaemonSet represents the configuration of a daemon set.', { spec: 2, status: 3 })

type DaemonSet = AnyObject

const STRATEGY_TYPES = ['RollingUpdate', 'OnDelete']
const STATUS_COUNTS = ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount']

/** SetDefaults_DaemonSet, the template defaulted as a Pod's. */
function defaultSpec (ds: DaemonSet): void {
  const spec: AnyObject = ds.spec ??= {}
  const strategy: AnyObject = spec.updateStrategy ??= {}
  if ((strategy.type ?? '') === '') strategy.type = 'RollingUpdate'
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate: AnyObject = strategy.rollingUpdate ??= {}
    rollingUpdate.maxUnavailable ??= 1
    rollingUpdate.maxSurge ??= 0
  }
  spec.revisionHistoryLimit ??= 10
  spec.template = defaultPodTemplate(spec.template)
}

/** ValidateRollingUpdateDaemonSet: exactly one of maxUnavailable and maxSurge is not zero. */
function validateRollingUpdate (rollingUpdate: AnyObject, at: string): FieldError[] {
  const { maxUnavailable, maxSurge } = rollingUpdate
  const errors = [
    ...validatePositiveIntOrPercent(maxUnavailable, `${at}.maxUnavailable`),
    ...validatePositiveIntOrPercent(maxSurge, `${at}.maxSurge`),
    ...isNotMoreThan100Percent(maxUnavailable, `${at}.maxUnavailable`),
    ...isNotMoreThan100Percent(maxSurge, `${at}.maxSurge`)
  ]
  const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0
  const hasSurge = intOrPercentValue(maxSurge) !== 0
  if (hasUnavailable && hasSurge) errors.push({ type: 'Invalid', field: `${at}.maxSurge`, value: maxSurge, detail: 'may not be set when maxUnavailable is non-zero' })
  if (!hasUnavailable && !hasSurge) errors.push({ type: 'Required', field: `${at}.maxUnavailable`, detail: 'cannot be 0 when maxSurge is 0' })
  return errors
}

function validateUpdateStrategy (strategy: AnyObject): FieldError[] {
  switch (strategy.type) {
    case 'OnDelete': return []
    case 'RollingUpdate':
      return strategy.rollingUpdate == null
        ? [{ type: 'Required', field: 'spec.updateStrategy.rollingUpdate' }]
        : validateRollingUpdate(strategy.rollingUpdate, 'spec.updateStrategy.rollingUpdate')
    default: return [{ type: 'NotSupported', field: 'spec.updateStrategy', value: strategy, supported: STRATEGY_TYPES }]
  }
}

/** ValidateDaemonSetSpec. */
function validateSpec (spec: AnyObject): FieldError[] {
  const selector = spec.selector
  const errors = validateLabelSelector(selector, 'spec.selector')
  // No selector selects nothing, so no template matches it; an empty one selects everything.
  if (selectorConvertible(selector, 'spec.selector') && !selectorSelects(selector, spec.template?.metadata?.labels)) {
    errors.push(selectorMismatch(spec.template, 'spec.template'))
  }
  if (selector != null && Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
    errors.push({ type: 'Invalid', field: 'spec.selector', value: selector, detail: 'empty selector is invalid for daemonset' })
  }
  errors.push(...validatePodTemplate(spec.template ?? {}, 'spec.template'))
  errors.push(...runnableTemplate(spec.template ?? {}, 'spec.template', 'DaemonSet'))
  errors.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'))
  errors.push(...validateUpdateStrategy(spec.updateStrategy ?? {}))
  errors.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'))
  return errors
}

const templateWarnings = (ds: DaemonSet): string[] => podSpecWarnings(ds.spec?.template?.spec, ds.spec?.template?.metadata, 'spec.template')

/** labels.FormatLabels: `k=v` by key, `<none>` for none. */
function labelsText (labels: Record<string, string> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort()
  return keys.length === 0 ? '<none>' : keys.map(k => `${k}=${labels![k]!}`).join(',')
}

const count = (value: unknown): number => typeof value === 'number' ? value : 0

export default defineResource({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  singular: 'daemonset',
  shortNames: ['ds'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  subresources: { status: statusSubresource() },
  strategy: {
    prepareForCreate (ds) {
      ds.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }
      defaultSpec(ds)
    },
    prepareForUpdate (ds) { defaultSpec(ds) },
    validate: (ds) => [...validateSpec(ds.spec ?? {}), ...nonNegativeCounts(ds.status, STATUS_COUNTS)],
    validateUpdate: (ds, old) => [
      ...immutable('spec.selector', ds.spec?.selector, old.spec?.selector),
      ...collisionCountKept(ds.status, old.status)
    ],
    warningsOnCreate: (ds) => templateWarnings(ds),
    warningsOnUpdate: (ds, old) => sameJson(ds.spec?.template, old.spec?.template) ? [] : templateWarnings(ds)
  },
  podTemplate: (ds) => ds.spec?.template,
  columns: [
    { name: 'Desired', type: 'integer', description: 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/', value: (d: DaemonSet) => count(d.status?.desiredNumberScheduled) },
    { name: 'Current', type: 'integer', description: 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/', value: (d: DaemonSet) => count(d.status?.currentNumberScheduled) },
    { name: 'Ready', type: 'integer', description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.', value: (d: DaemonSet) => count(d.status?.numberReady) },
    { name: 'Up-to-date', type: 'integer', description: 'The total number of nodes that are running updated daemon pod', value: (d: DaemonSet) => count(d.status?.updatedNumberScheduled) },
    { name: 'Available', type: 'integer', description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)', value: (d: DaemonSet) => count(d.status?.numberAvailable) },
    { name: 'Node Selector', type: 'string', description: "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/", value: (d: DaemonSet) => labelsText(d.spec?.template?.spec?.nodeSelector) },
    AGE_COLUMN,
    ...templateColumns((d) => d.spec?.template),
    { name: 'Selector', type: 'string', priority: 1, description: 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', value: (d: DaemonSet) => labelSelectorText(d.spec?.selector) || '<none>' }
  ],
  example: {
    metadata: { name: 'agent' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'registry.example/agent:1.0' }] } }
    },
    status: { currentNumberScheduled: 2, numberMisscheduled: 0, desiredNumberScheduled: 2, numberReady: 2, observedGeneration: 1, updatedNumberScheduled: 2, numberAvailable: 2 }
  }
})
