// PriorityLevelConfiguration (flowcontrol.apiserver.svc.io/v1, cluster scope): a priority level
// of API Priority and Fairness, either exempt from limits or limited to a share of the server's
// concurrency, with excess requests queued (shuffle-sharded) or rejected. The mandatory levels
// `exempt` and `catch-all` cannot take another spec (but `exempt`'s own `spec.exempt` field).
// Nothing limits requests by them yet.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { keepZero, message } from './protobuf.js'
import { mandatoryPriorityLevel, PRIORITY_LEVEL_EXEMPT, specsEqual } from './flowcontrol-bootstrap.js'
import { flowcontrolConditions, validateConditions } from './flowcontrol-types.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

export const PRIORITY_LEVEL_DEFAULTS = { nominalConcurrencyShares: 30, lendablePercent: 0, queues: 64, handSize: 8, queueLengthLimit: 50 } as const
const TYPES = ['Exempt', 'Limited']
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject']
const MAX_QUEUES = 10 * 1000 * 1000
/** Shuffle sharding deals hands from a 64-bit hash, of which this many bits are usable. */
const MAX_HASH_BITS = 60

const schema = objectSchema(`${GROUPS.flowcontrol}/v1`, 'PriorityLevelConfiguration', {
  spec: opt(Type.Object({
    type: opt(Type.String({ description: 'Exempt (requests are not limited; only the level named `exempt`) or Limited.' })),
    limited: opt(Type.Object({
      nominalConcurrencyShares: opt(Int32({ description: 'This level\'s share of the server\'s concurrency limit; default 30, zero allowed.' })),
      limitResponse: opt(Type.Object({
        type: opt(Type.String({ description: 'Queue or Reject: what happens to a request that cannot run at once.' })),
        queuing: opt(Type.Object({
          queues: opt(Int32({ description: 'The number of queues; default 64.' })),
          handSize: opt(Int32({ description: 'How many queues a flow is shuffle-sharded into; default 8, at most `queues`.' })),
          queueLengthLimit: opt(Int32({ description: 'How many requests a queue may hold; default 50.' }))
        }, { ...struct, description: 'The queuing parameters; only for type Queue.', ...message('QueuingConfiguration', { queues: 1, handSize: 2, queueLengthLimit: 3 }) }))
      }, { ...struct, description: 'What to do with requests that cannot run at once.', ...message('LimitResponse', { type: keepZero(1), queuing: 2 }) })),
      lendablePercent: opt(Int32({ description: 'The share of this level\'s concurrency other levels may borrow: 0 to 100, default 0.' })),
      borrowingLimitPercent: opt(Int32({ description: 'How much this level may borrow, in percent of its own limit; unset is unlimited.' }))
    }, { ...struct, description: 'The limits of a Limited level.', ...message('LimitedPriorityLevelConfiguration', { nominalConcurrencyShares: keepZero(1), limitResponse: 2, lendablePercent: keepZero(3), borrowingLimitPercent: keepZero(4) }) })),
    exempt: opt(Type.Object({
      nominalConcurrencyShares: opt(Int32({ description: 'Concurrency this level counts toward the server\'s limit; default 0.' })),
      lendablePercent: opt(Int32({ description: 'The share of that concurrency other levels may borrow: 0 to 100, default 0.' }))
    }, { ...struct, description: 'The settings of the Exempt level.', ...message('ExemptPriorityLevelConfiguration', { nominalConcurrencyShares: keepZero(1), lendablePercent: keepZero(2) }) }))
  }, { ...struct, description: 'PriorityLevelConfigurationSpec specifies the configuration of a priority level.', ...message('PriorityLevelConfigurationSpec', { type: keepZero(1), limited: 2, exempt: 3 }) })),
  status: opt(Type.Object({
    conditions: opt(flowcontrolConditions('PriorityLevelConfigurationCondition'))
  }, { ...struct, description: 'PriorityLevelConfigurationStatus represents the current state of a "request-priority".', ...message('PriorityLevelConfigurationStatus', { conditions: 1 }) }))
}, 'PriorityLevelConfiguration represents the configuration of a priority level.', { spec: 2, status: 3 })

type Level = AnyObject

const present = (v: unknown): boolean => v !== undefined && v !== null
const unsetOrZero = (v: unknown): boolean => v === undefined || v === null || v === 0

/** The reference's v1 defaults: pointers only when unset (an explicit zero share stays), queuing numbers when zero. */
function defaultSpec (pl: Level): void {
  const { limited, exempt } = pl.spec ?? {}
  if (present(limited)) {
    limited.nominalConcurrencyShares ??= PRIORITY_LEVEL_DEFAULTS.nominalConcurrencyShares
    limited.lendablePercent ??= PRIORITY_LEVEL_DEFAULTS.lendablePercent
    const queuing = limited.limitResponse?.queuing
    if (present(queuing)) {
      if (unsetOrZero(queuing.handSize)) queuing.handSize = PRIORITY_LEVEL_DEFAULTS.handSize
      if (unsetOrZero(queuing.queues)) queuing.queues = PRIORITY_LEVEL_DEFAULTS.queues
      if (unsetOrZero(queuing.queueLengthLimit)) queuing.queueLengthLimit = PRIORITY_LEVEL_DEFAULTS.queueLengthLimit
    }
  }
  if (present(exempt)) {
    exempt.nominalConcurrencyShares ??= 0
    exempt.lendablePercent ??= 0
  }
}

const percentProblem = (value: unknown, field: string): FieldError[] =>
  present(value) && !((value as number) >= 0 && (value as number) <= 100) ? [{ type: 'Invalid', field, value, detail: 'must be between 0 and 100, inclusive' }] : []

const nonNegative = (value: unknown, field: string, detail: string): FieldError[] =>
  present(value) && (value as number) < 0 ? [{ type: 'Invalid', field, value, detail }] : []

/** Bits of hash shuffle sharding needs to deal `handSize` of `queues` (the reference's RequiredEntropyBits). */
const requiredEntropyBits = (queues: number, handSize: number): number => Math.ceil(Math.log2(queues) * handSize)

function validateQueuing (queuing: Level, at: string): FieldError[] {
  const errors: FieldError[] = []
  const queueLengthLimit: number = queuing.queueLengthLimit ?? 0
  const queues: number = queuing.queues ?? 0
  const handSize: number = queuing.handSize ?? 0
  if (queueLengthLimit <= 0) errors.push({ type: 'Invalid', field: `${at}.queueLengthLimit`, value: queueLengthLimit, detail: 'must be positive' })
  if (queues <= 0) errors.push({ type: 'Invalid', field: `${at}.queues`, value: queues, detail: 'must be positive' })
  else if (queues > MAX_QUEUES) errors.push({ type: 'Invalid', field: `${at}.queues`, value: queues, detail: `must not be greater than ${MAX_QUEUES}` })
  if (handSize <= 0) errors.push({ type: 'Invalid', field: `${at}.handSize`, value: handSize, detail: 'must be positive' })
  else if (handSize > queues) errors.push({ type: 'Invalid', field: `${at}.handSize`, value: handSize, detail: `should not be greater than queues (${queues})` })
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errors.push({ type: 'Invalid', field: `${at}.handSize`, value: handSize, detail: `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}` })
  }
  return errors
}

function validateLimitResponse (response: Level, at: string): FieldError[] {
  switch (response.type) {
    case 'Reject':
      return present(response.queuing) ? [{ type: 'Forbidden', field: `${at}.queuing`, detail: 'must be nil if limited.limitResponse.type is not Limited' }] : []
    case 'Queue':
      return present(response.queuing)
        ? validateQueuing(response.queuing, `${at}.queuing`)
        : [{ type: 'Required', field: `${at}.queuing`, detail: 'must not be empty if limited.limitResponse.type is Limited' }]
    default:
      return [{ type: 'NotSupported', field: `${at}.type`, value: response.type ?? '', supported: LIMIT_RESPONSE_TYPES }]
  }
}

function validateLimited (limited: Level, at: string): FieldError[] {
  return [
    ...nonNegative(limited.nominalConcurrencyShares, `${at}.nominalConcurrencyShares`, 'must be a non-negative integer'),
    ...validateLimitResponse(limited.limitResponse ?? {}, `${at}.limitResponse`),
    ...percentProblem(limited.lendablePercent, `${at}.lendablePercent`),
    ...nonNegative(limited.borrowingLimitPercent, `${at}.borrowingLimitPercent`, 'if specified, must be a non-negative integer')
  ]
}

function validateSpec (name: string, spec: Level): FieldError[] {
  const errors: FieldError[] = []
  const type: string = spec.type ?? ''
  if ((name === PRIORITY_LEVEL_EXEMPT) !== (type === 'Exempt')) {
    errors.push({ type: 'Invalid', field: 'spec.type', value: type, detail: "type must be 'Exempt' if and only if name is 'exempt'" })
  }
  switch (type) {
    case 'Exempt':
      if (present(spec.limited)) errors.push({ type: 'Forbidden', field: 'spec.limited', detail: 'must be nil if the type is not Limited' })
      if (present(spec.exempt)) {
        errors.push(...nonNegative(spec.exempt.nominalConcurrencyShares, 'spec.exempt.nominalConcurrencyShares', 'must be a non-negative integer'))
        errors.push(...percentProblem(spec.exempt.lendablePercent, 'spec.exempt.lendablePercent'))
      }
      break
    case 'Limited':
      if (present(spec.exempt)) errors.push({ type: 'Forbidden', field: 'spec.exempt', detail: 'must be nil if the type is Limited' })
      if (present(spec.limited)) errors.push(...validateLimited(spec.limited, 'spec.limited'))
      else errors.push({ type: 'Required', field: 'spec.limited', detail: 'must not be empty when type is Limited' })
      break
    default:
      errors.push({ type: 'NotSupported', field: 'spec.type', value: type, supported: TYPES })
  }
  return errors
}

/** The mandatory levels keep their spec; an administrator may still tune `exempt`'s own settings. */
function validateMandatory (name: string, spec: Level | undefined): FieldError[] {
  const mandatory = mandatoryPriorityLevel(name)
  if (mandatory === undefined) return []
  if (name === PRIORITY_LEVEL_EXEMPT) {
    return specsEqual({ ...spec, exempt: mandatory.spec.exempt }, mandatory.spec)
      ? []
      : [{ type: 'Invalid', field: 'spec', value: spec, detail: `spec of '${name}' except the 'spec.exempt' field must equal the fixed value` }]
  }
  return specsEqual(spec, mandatory.spec) ? [] : [{ type: 'Invalid', field: 'spec', value: spec, detail: `spec of '${name}' must equal the fixed value` }]
}

function validate (pl: Level): FieldError[] {
  const name: string = pl.metadata?.name ?? ''
  return [...validateSpec(name, pl.spec ?? {}), ...validateMandatory(name, pl.spec), ...validateConditions(pl.status?.conditions)]
}

const queuingOf = (pl: Level): Level | undefined => pl.spec?.limited?.limitResponse?.queuing ?? undefined
const queuingCell = (field: 'queues' | 'handSize' | 'queueLengthLimit') => (pl: Level): number | string => {
  const queuing = present(pl.spec?.limited) ? queuingOf(pl) : undefined
  return queuing === undefined ? '<none>' : queuing[field] ?? 0
}

export default defineResource({
  group: GROUPS.flowcontrol,
  version: 'v1',
  kind: 'PriorityLevelConfiguration',
  plural: 'prioritylevelconfigurations',
  singular: 'prioritylevelconfiguration',
  scope: 'Cluster',
  schema,
  subresources: { status: statusSubresource() },
  strategy: {
    prepareForCreate: defaultSpec,
    prepareForUpdate: defaultSpec,
    validate
  },
  columns: [
    { name: 'Type', type: 'string', description: '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.', value: (pl: Level) => pl.spec?.type ?? '' },
    { name: 'NominalConcurrencyShares', type: 'string', description: '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.', value: (pl: Level) => present(pl.spec?.limited) ? pl.spec.limited.nominalConcurrencyShares ?? 0 : '<none>' },
    { name: 'Queues', type: 'string', description: '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.', value: queuingCell('queues') },
    { name: 'HandSize', type: 'string', description: '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request\'s flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.', value: queuingCell('handSize') },
    { name: 'QueueLengthLimit', type: 'string', description: '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.', value: queuingCell('queueLengthLimit') },
    AGE_COLUMN
  ],
  example: {
    metadata: { name: 'example-batch' },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 10,
        lendablePercent: 20,
        borrowingLimitPercent: 50,
        limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 20 } }
      }
    },
    status: { conditions: [{ type: 'ConcurrencyShared', status: 'True', reason: 'Example', message: 'an example condition', lastTransitionTime: '2024-01-01T00:00:00Z' }] }
  }
})
