// LimitRange (core v1, namespaced): per-namespace bounds and defaults for the compute a
// container or pod asks for and the storage a claim asks for; the LimitRanger admission plugin
// applies them. Validation as the reference server's: standard types once each, resource
// names each type knows, and min <= defaultRequest <= default <= max.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { objectSchema } from './meta.js'
import { AtomicList, ResourceList, validateResourceList } from './core-types.js'
import { compareQuantities, milliValue, type ResourceList as Quantities } from './quantity.js'
import { invalidEach, qualifiedNameProblems } from './validation.js'
import { keepZero, message } from './protobuf.js'

export const LIMIT_TYPES = { container: 'Container', pod: 'Pod', claim: 'PersistentVolumeClaim' } as const
const STANDARD_TYPES: readonly string[] = Object.values(LIMIT_TYPES)
const CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage']
const HUGEPAGES = 'hugepages-'
/** Resources that cannot be overcommitted: default and defaultRequest must agree. */
const overcommitAllowed = (name: string): boolean => CONTAINER_RESOURCES.includes(name) || name === 'storage'

const LimitRangeItem = Type.Object({
  type: Type.String({ description: 'Container, Pod or PersistentVolumeClaim.' }),
  max: Type.Optional(ResourceList({ description: 'The most of each resource allowed.' })),
  min: Type.Optional(ResourceList({ description: 'The least of each resource allowed.' })),
  default: Type.Optional(ResourceList({ description: 'Limits given to containers that set none.' })),
  defaultRequest: Type.Optional(ResourceList({ description: 'Requests given to containers that set none.' })),
  maxLimitRequestRatio: Type.Optional(ResourceList({ description: 'The largest limit/request ratio allowed.' }))
}, { additionalProperties: false, ...message('LimitRangeItem', { type: keepZero(1), max: 2, min: 3, default: 4, defaultRequest: 5, maxLimitRequestRatio: 6 }) })

const schema = objectSchema('v1', 'LimitRange', {
  spec: Type.Optional(Type.Object({
    limits: AtomicList(LimitRangeItem, { description: 'The limits enforced.' })
  }, { additionalProperties: false, ...message('LimitRangeSpec', { limits: 1 }) }))
}, 'LimitRange sets resource usage limits for each kind of resource in a Namespace.', { spec: 2 })

function resourceNameProblems (type: string, name: string, field: string): FieldError[] {
  const errors = invalidEach(field, name, qualifiedNameProblems(name))
  if (name.includes('/')) return errors
  if (type === LIMIT_TYPES.container || type === LIMIT_TYPES.pod) {
    if (!CONTAINER_RESOURCES.includes(name) && !name.startsWith(HUGEPAGES)) errors.push({ type: 'Invalid', field, value: name, detail: 'must be a standard resource for containers' })
  } else if (type === LIMIT_TYPES.claim && name !== 'storage') {
    errors.push({ type: 'Invalid', field, value: name, detail: 'must be a standard resource type or fully qualified' })
  }
  return errors
}

type Item = Record<string, any>

/**
 * The reference defaults of a Container item: the default limit is the max where unset, the
 * default request the default limit, else the min.
 */
function defaultItem (item: Item): void {
  if (item.type !== LIMIT_TYPES.container) return
  const dflt: Quantities = { ...(item.max ?? {}), ...(item.default ?? {}) }
  const request: Quantities = { ...(item.min ?? {}), ...dflt, ...(item.defaultRequest ?? {}) }
  if (Object.keys(dflt).length > 0) item.default = dflt
  if (Object.keys(request).length > 0) item.defaultRequest = request
}
const PARTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const

function validateItem (limit: Item, field: string, seen: Set<string>): FieldError[] {
  const errors: FieldError[] = []
  const type: string = limit.type ?? ''
  if (type === '') errors.push({ type: 'Required', field: `${field}.type` })
  else {
    errors.push(...invalidEach(`${field}.type`, type, qualifiedNameProblems(type)))
    if (!type.includes('/') && !STANDARD_TYPES.includes(type)) errors.push({ type: 'Invalid', field: `${field}.type`, value: type, detail: 'must be a standard limit type or fully qualified' })
  }
  if (seen.has(type)) errors.push({ type: 'Duplicate', field: `${field}.type`, value: type })
  seen.add(type)
  const lists: Record<(typeof PARTS)[number], Quantities> = { max: {}, min: {}, default: {}, defaultRequest: {}, maxLimitRequestRatio: {} }
  for (const part of PARTS) {
    const given: Quantities = limit[part] ?? {}
    if (type === LIMIT_TYPES.pod && (part === 'default' || part === 'defaultRequest')) {
      if (Object.keys(given).length > 0) errors.push({ type: 'Forbidden', field: `${field}.${part}`, detail: "may not be specified when `type` is 'Pod'" })
      continue
    }
    for (const name of Object.keys(given)) errors.push(...resourceNameProblems(type, name, `${field}.${part}[${name}]`))
    errors.push(...validateResourceList(given, `${field}.${part}`))
    lists[part] = given
  }
  if (type === LIMIT_TYPES.claim && lists.min.storage === undefined && lists.max.storage === undefined) {
    errors.push({ type: 'Required', field: `${field}.limits`, detail: 'either minimum or maximum storage value is required, but neither was provided' })
  }
  const names = new Set(PARTS.flatMap(p => Object.keys(lists[p])))
  for (const k of names) {
    const { max: { [k]: max }, min: { [k]: min }, default: { [k]: dflt }, defaultRequest: { [k]: request }, maxLimitRequestRatio: { [k]: ratio } } = lists
    const bad = (part: string, value: string, detail: string): void => { errors.push({ type: 'Invalid', field: `${field}.${part}[${k}]`, value, detail }) }
    if (min !== undefined && max !== undefined && compareQuantities(min, max) > 0) bad('min', min, `min value ${min} is greater than max value ${max}`)
    if (request !== undefined && min !== undefined && compareQuantities(min, request) > 0) bad('defaultRequest', request, `min value ${min} is greater than default request value ${request}`)
    if (request !== undefined && max !== undefined && compareQuantities(request, max) > 0) bad('defaultRequest', request, `default request value ${request} is greater than max value ${max}`)
    if (request !== undefined && dflt !== undefined && compareQuantities(request, dflt) > 0) bad('defaultRequest', request, `default request value ${request} is greater than default limit value ${dflt}`)
    if (dflt !== undefined && min !== undefined && compareQuantities(min, dflt) > 0) bad('default', min, `min value ${min} is greater than default value ${dflt}`)
    if (dflt !== undefined && max !== undefined && compareQuantities(dflt, max) > 0) bad('default', max, `default value ${dflt} is greater than max value ${max}`)
    if (ratio !== undefined && compareQuantities(ratio, '1') < 0) bad('maxLimitRequestRatio', ratio, `ratio ${ratio} is less than 1`)
    if (ratio !== undefined && min !== undefined && max !== undefined) {
      const allowed = Number(milliValue(max)) / Number(milliValue(min))
      if (Number(milliValue(ratio)) / 1000 > allowed) bad('maxLimitRequestRatio', ratio, `ratio ${ratio} is greater than max/min = ${allowed.toFixed(6)}`)
    }
    if (!overcommitAllowed(k) && dflt !== undefined && request !== undefined && compareQuantities(dflt, request) !== 0) {
      bad('defaultRequest', request, `default value ${dflt} must equal to defaultRequest value ${request} in ${k}`)
    }
  }
  return errors
}

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  plural: 'limitranges',
  singular: 'limitrange',
  shortNames: ['limits'],
  scope: 'Namespaced',
  schema,
  generation: false,
  strategy: {
    // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    prepareForCreate: (lr) => { for (const item of lr.spec?.limits ?? []) defaultItem(item) },
    prepareForUpdate: (lr) => { for (const item of lr.spec?.limits ?? []) defaultItem(item) },
    validate (lr) {
      const seen = new Set<string>()
      return (lr.spec?.limits ?? []).flatMap((limit: Item, i: number) => validateItem(limit, `spec.limits[${i}]`, seen))
    }
  },
  example: {
    metadata: { name: 'container-defaults' },
    spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '250m', memory: '128Mi' } }] }
  }
})
