// StatefulSet (apps/v1): pods with stable names and storage, made in order from one template,
// each with claims made from the set's volumeClaimTemplates. Once created, a set may change only
// its replicas, ordinals, template, update strategy, history limit, claim retention and
// minReadySeconds, as the reference's ValidateStatefulSetUpdate allows.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type FieldError, type RequestContext } from './define.js'
import { AGE_COLUMN, Int32, Int64, ObjectMeta, objectSchema, Timestamp } from './meta.js'
import { AtomicList, LabelSelector, MapList, validateLabelSelector } from './core-types.js'
import { IntOrString } from './pod-types.js'
import { defaultPodTemplate, PodTemplateSpec, selectorMismatch } from './pod-template.js'
import { labelSelectorText } from './label-selector.js'
import { scaleSubresource } from './scale.js'
import { claimSpecWarnings, podSpecWarnings } from './deprecation-warnings.js'
import { dnsLabelProblems, invalidEach, validateAnnotations, validateLabels } from './validation.js'
import { JSON_ONLY, keepZero, message } from './protobuf.js'
import persistentvolumeclaims from './persistentvolumeclaims.js'
import { nonNegativeCounts, sameJson, selectorConvertible, selectorSelects } from './set-validation.js'
import { collisionCountKept, intOrPercentValue, isNotMoreThan100Percent, nonNegative, runnableTemplate, validatePositiveIntOrPercent } from './workload-validation.js'
import { templateColumns } from './workload-columns.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const claim = persistentvolumeclaims.schema.properties
/**
 * A claim template: a PersistentVolumeClaim as a value (core v1's message, whose type fields
 * JSON carries and protobuf does not).
 */
const ClaimTemplate = Type.Object({
  apiVersion: opt(Type.String()),
  kind: opt(Type.String()),
  metadata: opt(ObjectMeta),
  spec: claim.spec!,
  status: claim.status!
}, { ...struct, ...message('PersistentVolumeClaim', { apiVersion: JSON_ONLY, kind: JSON_ONLY, metadata: 1, spec: 2, status: 3 }) })

const SetCondition = Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
  reason: opt(Type.String()),
  message: opt(Type.String())
}, { ...struct, ...message('StatefulSetCondition', { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 }) })

const schema = objectSchema('apps/v1', 'StatefulSet', {
  spec: opt(Type.Object({
    replicas: opt(Int32({ description: 'The desired number of pods; defaults to 1.' })),
    selector: opt(LabelSelector),
    template: opt(PodTemplateSpec),
    volumeClaimTemplates: opt(AtomicList(ClaimTemplate)),
    serviceName: opt(Type.String({ description: 'The Service that governs the set: pods are named <pod>.<serviceName>.' })),
    podManagementPolicy: opt(Type.String({ description: 'OrderedReady (default) or Parallel.' })),
    updateStrategy: opt(Type.Object({
      type: opt(Type.String({ description: 'RollingUpdate (default) or OnDelete.' })),
      rollingUpdate: opt(Type.Object({
        partition: opt(Int32()),
        maxUnavailable: opt(IntOrString())
      }, { ...struct, ...message('RollingUpdateStatefulSetStrategy', { partition: keepZero(1), maxUnavailable: 2 }) }))
    }, { ...struct, ...message('StatefulSetUpdateStrategy', { type: 1, rollingUpdate: 2 }) })),
    revisionHistoryLimit: opt(Int32()),
    minReadySeconds: opt(Int32()),
    persistentVolumeClaimRetentionPolicy: opt(Type.Object({
      whenDeleted: opt(Type.String()),
      whenScaled: opt(Type.String())
    }, { ...struct, ...message('StatefulSetPersistentVolumeClaimRetentionPolicy', { whenDeleted: 1, whenScaled: 2 }) })),
    ordinals: opt(Type.Object({ start: opt(Int32()) }, { ...struct, ...message('StatefulSetOrdinals', { start: keepZero(1) }) }))
  }, { ...struct, description: 'A StatefulSetSpec is the specification of a StatefulSet.', ...message('StatefulSetSpec', {
    replicas: keepZero(1),
    selector: 2,
    template: 3,
    volumeClaimTemplates: 4,
    serviceName: 5,
    podManagementPolicy: 6,
    updateStrategy: 7,
    revisionHistoryLimit: keepZero(8),
    minReadySeconds: 9,
    persistentVolumeClaimRetentionPolicy: 10,
    ordinals: 11
  }) })),
  status: opt(Type.Object({
    observedGeneration: opt(Int64()),
    replicas: opt(Int32()),
    readyReplicas: opt(Int32()),
    currentReplicas: opt(Int32()),
    updatedReplicas: opt(Int32()),
    currentRevision: opt(Type.String()),
    updateRevision: opt(Type.String()),
    collisionCount: opt(Int32()),
    conditions: opt(MapList(SetCondition, ['type'])),
    availableReplicas: opt(Int32())
  }, { ...struct, ...message('StatefulSetStatus', {
    observedGeneration: 1,
    replicas: keepZero(2),
    readyReplicas: 3,
    currentReplicas: 4,
    updatedReplicas: 5,
    currentRevision: 6,
    updateRevision: 7,
    collisionCount: keepZero(9),
    conditions: 10,
    availableReplicas: keepZero(11)
  }) }))
}, 'StatefulSet represents a set of pods with consistent identities.', { spec: 2, status: 3 })

type StatefulSet = AnyObject

const POD_MANAGEMENT_POLICIES = ['OrderedReady', 'Parallel']
const RETENTION_POLICIES = ['Retain', 'Delete']
const SPEC_UPDATE_FORBIDDEN = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
/** The spec fields an update may change; every other one must stay as stored. */
const MUTABLE_SPEC_FIELDS = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds']
const STATUS_COUNTS = ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount']

/** SetDefaults_StatefulSet, with the claim templates and the pod template defaulted as their own kinds. */
function defaultSpec (set: StatefulSet): void {
  const spec: AnyObject = set.spec ??= {}
  if ((spec.podManagementPolicy ?? '') === '') spec.podManagementPolicy = 'OrderedReady'
  const strategy: AnyObject = spec.updateStrategy ??= {}
  if ((strategy.type ?? '') === '') {
    strategy.type = 'RollingUpdate'
    strategy.rollingUpdate ??= {}
  }
  if (strategy.type === 'RollingUpdate' && strategy.rollingUpdate != null) strategy.rollingUpdate.partition ??= 0
  const retention: AnyObject = spec.persistentVolumeClaimRetentionPolicy ??= {}
  if ((retention.whenDeleted ?? '') === '') retention.whenDeleted = 'Retain'
  if ((retention.whenScaled ?? '') === '') retention.whenScaled = 'Retain'
  spec.replicas ??= 1
  spec.revisionHistoryLimit ??= 10
  spec.template = defaultPodTemplate(spec.template)
  for (const template of spec.volumeClaimTemplates ?? []) {
    // As the reference answers them: typed as claims, and Pending as a claim is made.
    template.apiVersion = 'v1'
    template.kind = 'PersistentVolumeClaim'
    template.spec ??= {}
    template.spec.volumeMode ??= 'Filesystem'
    template.status ??= {}
    if ((template.status.phase ?? '') === '') template.status.phase = 'Pending'
  }
}

/** maxUnavailable is behind MaxUnavailableStatefulSet, alpha: while it is off, kept only where the stored set uses it. */
function dropDisabledFields (set: StatefulSet, old: StatefulSet | undefined, ctx: RequestContext): void {
  if (ctx.features.enabled('MaxUnavailableStatefulSet')) return
  const rollingUpdate = set.spec?.updateStrategy?.rollingUpdate
  if (rollingUpdate?.maxUnavailable === undefined) return
  if (old?.spec?.updateStrategy?.rollingUpdate?.maxUnavailable != null) return
  delete rollingUpdate.maxUnavailable
}

function validateRollingUpdate (rollingUpdate: AnyObject, at: string): FieldError[] {
  const errors = nonNegative(rollingUpdate.partition, `${at}.partition`)
  const maxUnavailable = rollingUpdate.maxUnavailable
  if (maxUnavailable != null) {
    errors.push(...validatePositiveIntOrPercent(maxUnavailable, `${at}.maxUnavailable`))
    if (intOrPercentValue(maxUnavailable) === 0) errors.push({ type: 'Invalid', field: `${at}.maxUnavailable`, value: maxUnavailable, detail: 'cannot be 0' })
    errors.push(...isNotMoreThan100Percent(maxUnavailable, `${at}.maxUnavailable`))
  }
  return errors
}

/** ValidatePodTemplateSpecForStatefulSet: the selector's match and the template's metadata; its pod spec is not checked in 1.33. */
function validateTemplate (template: AnyObject | undefined, selector: AnyObject | undefined): FieldError[] {
  if (template == null) return [{ type: 'Required', field: 'spec.template' }]
  const errors: FieldError[] = []
  const everything = selector != null && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0
  if (!everything && !selectorSelects(selector, template.metadata?.labels)) {
    errors.push(selectorMismatch(template, 'spec.template'))
  }
  errors.push(...validateLabels(template.metadata?.labels, 'spec.template.labels'), ...validateAnnotations(template.metadata?.annotations, 'spec.template.annotations'))
  return errors
}

/** ValidateStatefulSetSpec but for serviceName, which updates check only where the stored name was valid. */
function validateSpec (spec: AnyObject): FieldError[] {
  const errors: FieldError[] = []
  const policy = spec.podManagementPolicy ?? ''
  if (policy === '') errors.push({ type: 'Required', field: 'spec.podManagementPolicy' })
  else if (!POD_MANAGEMENT_POLICIES.includes(policy)) errors.push({ type: 'Invalid', field: 'spec.podManagementPolicy', value: policy, detail: "must be 'OrderedReady' or 'Parallel'" })

  const strategy: AnyObject = spec.updateStrategy ?? {}
  switch (strategy.type ?? '') {
    case '': errors.push({ type: 'Required', field: 'spec.updateStrategy' }); break
    case 'OnDelete':
      if (strategy.rollingUpdate != null) errors.push({ type: 'Invalid', field: 'spec.updateStrategy.rollingUpdate', value: strategy.rollingUpdate, detail: "only allowed for updateStrategy 'RollingUpdate'" })
      break
    case 'RollingUpdate':
      if (strategy.rollingUpdate != null) errors.push(...validateRollingUpdate(strategy.rollingUpdate, 'spec.updateStrategy.rollingUpdate'))
      break
    default: errors.push({ type: 'Invalid', field: 'spec.updateStrategy', value: strategy, detail: "must be 'RollingUpdate' or 'OnDelete'" })
  }

  const retention = spec.persistentVolumeClaimRetentionPolicy
  if (retention != null) {
    for (const when of ['whenDeleted', 'whenScaled']) {
      const value = retention[when] ?? ''
      if (!RETENTION_POLICIES.includes(value)) errors.push({ type: 'NotSupported', field: `spec.persistentVolumeClaimRetentionPolicy.${when}`, value, supported: RETENTION_POLICIES })
    }
  }

  errors.push(...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'))
  if (spec.ordinals != null) errors.push(...nonNegative(spec.ordinals.start, 'spec.ordinals.start'))

  const selector = spec.selector
  if (selector == null) errors.push({ type: 'Required', field: 'spec.selector' })
  else {
    errors.push(...validateLabelSelector(selector, 'spec.selector'))
    if (Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
      errors.push({ type: 'Invalid', field: 'spec.selector', value: selector, detail: 'empty selector is invalid for statefulset' })
    }
  }
  if (!selectorConvertible(selector, 'spec.selector')) errors.push({ type: 'Invalid', field: 'spec.selector', value: selector, detail: '' })
  else errors.push(...validateTemplate(spec.template, selector))
  errors.push(...runnableTemplate(spec.template ?? {}, 'spec.template', 'StatefulSet'))
  return errors
}

const serviceNameProblems = (spec: AnyObject | undefined): FieldError[] =>
  typeof spec?.serviceName === 'string' && spec.serviceName !== '' ? invalidEach('spec.serviceName', spec.serviceName, dnsLabelProblems(spec.serviceName)) : []

/** ValidateStatefulSetStatus. */
function validateStatus (status: AnyObject | undefined): FieldError[] {
  const errors = nonNegativeCounts(status, STATUS_COUNTS)
  const count = (f: string): number => typeof status?.[f] === 'number' ? status[f] : 0
  for (const f of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']) {
    if (count(f) > count('replicas')) errors.push({ type: 'Invalid', field: `status.${f}`, value: count(f), detail: 'cannot be greater than status.replicas' })
  }
  if (count('availableReplicas') > count('readyReplicas')) {
    errors.push({ type: 'Invalid', field: 'status.availableReplicas', value: count('availableReplicas'), detail: 'cannot be greater than status.readyReplicas' })
  }
  return errors
}

const templateWarnings = (set: StatefulSet): string[] => podSpecWarnings(set.spec?.template?.spec, set.spec?.template?.metadata, 'spec.template')

/** The claim templates' warnings, at the paths the reference names them (`.Spec` on update, as it spells it). */
const claimWarnings = (set: StatefulSet, child: string): string[] =>
  ((set.spec?.volumeClaimTemplates ?? []) as AnyObject[]).flatMap((t, i) => claimSpecWarnings(t.spec, `spec.volumeClaimTemplates[${i}]${child}`))

const historyWarnings = (set: StatefulSet): string[] =>
  typeof set.spec?.revisionHistoryLimit === 'number' && set.spec.revisionHistoryLimit < 0
    ? ['spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended']
    : []

export default defineResource({
  group: 'apps',
  version: 'v1',
  kind: 'StatefulSet',
  plural: 'statefulsets',
  singular: 'statefulset',
  shortNames: ['sts'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  // Its pods are named <set>-<ordinal> and take the set's name as their hostname: a DNS label.
  nameRule: 'DNSLabel',
  subresources: {
    status: statusSubresource(),
    scale: scaleSubresource({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', selector: (set) => labelSelectorText(set.spec?.selector) })
  },
  strategy: {
    prepareForCreate (set, ctx) {
      set.status = { replicas: 0, availableReplicas: 0 }
      dropDisabledFields(set, undefined, ctx)
      defaultSpec(set)
    },
    prepareForUpdate (set, old, ctx) {
      dropDisabledFields(set, old, ctx)
      defaultSpec(set)
    },
    validate: (set) => [...validateSpec(set.spec ?? {}), ...validateStatus(set.status)],
    validateCreate: (set) => serviceNameProblems(set.spec),
    validateUpdate (set, old) {
      // A name stored before 1.33 checked it stays acceptable (the reference's ratcheting).
      const errors = serviceNameProblems(old.spec).length === 0 ? serviceNameProblems(set.spec) : []
      const was: AnyObject = old.spec ?? {}
      const kept: AnyObject = { ...(set.spec ?? {}) }
      for (const f of MUTABLE_SPEC_FIELDS) {
        if (was[f] === undefined) delete kept[f]
        else kept[f] = was[f]
      }
      if (!sameJson(kept, was)) errors.push({ type: 'Forbidden', field: 'spec', detail: SPEC_UPDATE_FORBIDDEN })
      errors.push(...collisionCountKept(set.status, old.status))
      return errors
    },
    warningsOnCreate: (set) => [...templateWarnings(set), ...claimWarnings(set, ''), ...historyWarnings(set)],
    warningsOnUpdate: (set, old) => [...(sameJson(set.spec, old.spec) ? [] : templateWarnings(set)), ...claimWarnings(set, '.Spec'), ...historyWarnings(set)]
  },
  podTemplate: (set) => set.spec?.template,
  columns: [
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', value: (s: StatefulSet) => `${Number(s.status?.readyReplicas ?? 0)}/${Number(s.spec?.replicas ?? 0)}` },
    AGE_COLUMN,
    ...templateColumns((s) => s.spec?.template)
  ],
  example: {
    metadata: { name: 'web' },
    spec: {
      serviceName: 'web',
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'registry.example/web:1.0' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }]
    },
    status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1, availableReplicas: 1, currentRevision: 'web-5d9f8c7b6', updateRevision: 'web-5d9f8c7b6', collisionCount: 0 }
  }
})
