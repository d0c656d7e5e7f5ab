// The x-kubernetes-validations checks made when a CustomResourceDefinition is written, as the
// reference's apiextensions validation.go: each entry's fields, every rule and messageExpression
// compiled against its node, transition rules refused where oldSelf cannot be correlated, and the
// estimated cost of each rule (times how often its node can occur) and of all of them together
// held against StaticEstimatedCostLimit and StaticEstimatedCRDCostLimit.
import type { FieldError } from '../../resources/status.js'
import type { JSONSchemaProps } from '../openapi-schema/types.js'
import { estimateCost } from './estimate.js'
import { checkFieldPath } from './rule-field-path.js'
import { compileRules } from './rules.js'
import { cardinalityFromSize, sizeOf } from './sizes.js'
import { ruleEntries, toStructural } from './structural.js'

/** The largest estimated cost of one rule, times its node's cardinality. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000
/** The largest estimated cost of all the rules of one schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000

export const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired']

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s)
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The reference's wording of an estimate over its limit, with the factor as Go's %f / %.1f print it. */
export function costErrorMessage (what: string, cost: number, limit: number): string {
  const factor = cost / limit
  const text = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`
  return `${what} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`
}

interface Context {
  /** how many times the node can occur in one object; undefined when a map or list above is unbounded */
  cardinality: number | undefined
  /** the highest list (or map) path below which oldSelf cannot be correlated */
  uncorrelatable?: string
  isRoot: boolean
}

/** The sum of all rule costs and the (up to four) rules contributing at least 1% of the limit. */
class TotalCost {
  total = 0
  mostExpensive: Array<{ path: string, cost: number }> = []
  observe (path: string, cost: number): void {
    this.total = Math.min(this.total + cost, Number.MAX_SAFE_INTEGER)
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return
    this.mostExpensive.push({ path, cost })
    this.mostExpensive.sort((a, b) => b.cost - a.cost)
    this.mostExpensive.length = Math.min(this.mostExpensive.length, 4)
  }
}

/** The factor by which a node multiplies how often its children occur. */
function childFactor (s: Record<string, unknown>): number | undefined {
  const bound = (v: unknown): number | undefined => typeof v === 'number' ? Math.max(0, Math.trunc(v)) : undefined
  if (s.type === 'object') return s.additionalProperties !== undefined ? bound(s.maxProperties) : 1
  if (s.type === 'array') return bound(s.maxItems)
  return 1
}

function childContext (parent: Record<string, unknown>, ctx: Context, uncorrelatable: string | undefined): Context {
  const f = ctx.cardinality === undefined ? undefined : childFactor(parent)
  return {
    cardinality: f === undefined || ctx.cardinality === undefined ? undefined : Math.min(ctx.cardinality * f, Number.MAX_SAFE_INTEGER),
    uncorrelatable: ctx.uncorrelatable ?? uncorrelatable,
    isRoot: false
  }
}

export interface CrdRuleOptions {
  /**
   * The fields of the errors the caller's own checks of the schema found (the OpenAPI subset and
   * list/map markers). As the reference, rules are not compiled on a node with errors at or below
   * it: a wrong schema gives CEL errors no one can act on. A schema that is not structural at all
   * gets no CEL checks in the reference: do not call this for it.
   */
  schemaErrorFields?: readonly string[]
}

/**
 * Every problem of the x-kubernetes-validations of one CRD version's openAPIV3Schema, at
 * `basePath` (`spec.validation.openAPIV3Schema` when all versions share one schema, else
 * `spec.versions[i].schema.openAPIV3Schema`).
 */
export function crdRuleProblems (schema: JSONSchemaProps | Record<string, unknown>, basePath: string, opts: CrdRuleOptions = {}): FieldError[] {
  const total = new TotalCost()
  const otherErrors = opts.schemaErrorFields ?? []
  const hasErrorsAtOrBelow = (path: string): boolean =>
    otherErrors.some((f) => f === path || f.startsWith(`${path}.`) || f.startsWith(`${path}[`))
  const errors = walk(schema as Record<string, unknown>, basePath, { cardinality: 1, isRoot: true }, total, hasErrorsAtOrBelow).all
  if (total.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of total.mostExpensive) {
      errors.push({ type: 'Forbidden', field: e.path, detail: 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema' })
    }
    errors.push({
      type: 'Forbidden',
      field: basePath,
      detail: costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total.total, STATIC_ESTIMATED_CRD_COST_LIMIT)
    })
  }
  return errors
}

/** Errors below a node: entry errors (which stop CEL checks at and above them) and CEL errors. */
interface Found { schemaErrors: number, all: FieldError[] }

function walk (s: Record<string, unknown>, path: string, ctx: Context, total: TotalCost, hasErrors: (path: string) => boolean): Found {
  const found: Found = { schemaErrors: 0, all: [] }
  const add = (f: Found): void => { found.schemaErrors += f.schemaErrors; found.all.push(...f.all) }
  if (isObject(s.additionalProperties)) {
    add(walk(s.additionalProperties, `${path}.additionalProperties`, childContext(s, ctx, undefined), total, hasErrors))
  }
  if (isObject(s.properties)) {
    const mapType = s['x-kubernetes-map-type']
    const correlatable = mapType === undefined || mapType === 'granular' || mapType === 'atomic'
    for (const [name, sub] of Object.entries(s.properties)) {
      if (isObject(sub)) add(walk(sub, `${path}.properties[${name}]`, childContext(s, ctx, correlatable ? undefined : path), total, hasErrors))
    }
  }
  if (isObject(s.items)) {
    // Only map-lists correlate their items with old ones for rules.
    add(walk(s.items, `${path}.items`, childContext(s, ctx, s['x-kubernetes-list-type'] === 'map' ? undefined : path), total, hasErrors))
  }
  if (Array.isArray(s['x-kubernetes-validations']) && s['x-kubernetes-validations'].length > 0) {
    const entryErrors = checkEntries(s, path)
    found.schemaErrors += entryErrors.length
    found.all.push(...entryErrors)
    // Rules are only compiled on a schema without errors at or below the node, as the reference.
    if (found.schemaErrors === 0 && !hasErrors(path)) found.all.push(...checkRules(s, path, ctx, total))
  }
  return found
}

function checkEntries (s: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = []
  const structural = toStructural(s)
  ruleEntries(structural).forEach((r, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`
    const rule = r.rule.trim()
    const message = r.message?.trim() ?? ''
    if (rule === '') errors.push({ type: 'Required', field: `${at}.rule`, detail: 'rule is not specified' })
    else if (r.message !== undefined && r.message.length > 0 && message === '') errors.push({ type: 'Invalid', field: `${at}.message`, value: r.message, detail: 'message must be non-empty if specified' })
    else if (hasNewlines(message)) errors.push({ type: 'Invalid', field: `${at}.message`, value: r.message, detail: 'message must not contain line breaks' })
    else if (hasNewlines(rule) && message === '') errors.push({ type: 'Required', field: `${at}.message`, detail: 'message must be specified if rule contains line breaks' })
    if (r.messageExpression !== undefined && r.messageExpression.length > 0 && r.messageExpression.trim() === '') {
      errors.push({ type: 'Required', field: `${at}.messageExpression`, detail: 'messageExpression must be non-empty if specified' })
    }
    if (r.reason !== undefined && !SUPPORTED_REASONS.includes(r.reason)) {
      errors.push({ type: 'NotSupported', field: `${at}.reason`, value: r.reason, supported: SUPPORTED_REASONS })
    }
    const fieldPath = r.fieldPath ?? ''
    if (fieldPath.length > 0 && fieldPath.trim() === '') errors.push({ type: 'Invalid', field: `${at}.fieldPath`, value: fieldPath, detail: 'fieldPath must be non-empty if specified' })
    if (hasNewlines(fieldPath)) errors.push({ type: 'Invalid', field: `${at}.fieldPath`, value: fieldPath, detail: 'fieldPath must not contain line breaks' })
    if (fieldPath.length > 0 && !checkFieldPath(fieldPath, structural).ok) {
      errors.push({ type: 'Invalid', field: `${at}.fieldPath`, value: fieldPath, detail: 'fieldPath must be a valid path' })
    }
  })
  return errors
}

function checkRules (s: Record<string, unknown>, path: string, ctx: Context, total: TotalCost): FieldError[] {
  const errors: FieldError[] = []
  const structural = toStructural(s)
  const resourceRoot = ctx.isRoot || structural['x-kubernetes-embedded-resource'] === true
  const size = sizeOf(structural, resourceRoot)
  if (size === undefined) {
    // The reference reports this as an internal error; FieldError has no such type, Invalid carries its words.
    return [{
      type: 'Invalid',
      field: `${path}.x-kubernetes-validations`,
      value: '',
      detail: 'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations'
    }]
  }
  const entries = ruleEntries(structural)
  const raw = s['x-kubernetes-validations'] as unknown[]
  const compiled = compileRules(structural, entries, { resourceRoot })
  const cardinality = ctx.cardinality ?? cardinalityFromSize(size.minSerializedSize)
  compiled.forEach((c, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`
    const cost = c.program === undefined ? 0 : Math.min(estimateCost(c.program.ast, size) * cardinality, Number.MAX_SAFE_INTEGER)
    if (cost > STATIC_ESTIMATED_COST_LIMIT) errors.push({ type: 'Forbidden', field: `${at}.rule`, detail: costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT) })
    total.observe(`${at}.rule`, cost)
    if (c.error !== undefined) errors.push({ type: 'Invalid', field: `${at}.rule`, value: raw[i], detail: c.error })
    if (c.messageError !== undefined) {
      errors.push({ type: 'Invalid', field: `${at}.messageExpression`, value: raw[i], detail: c.messageError })
    } else if (c.message !== undefined) {
      // The message is built once per failure, so its cost is not multiplied by the cardinality.
      const messageCost = estimateCost(c.message.ast, size)
      if (messageCost > STATIC_ESTIMATED_COST_LIMIT) {
        errors.push({ type: 'Forbidden', field: `${at}.messageExpression`, detail: costErrorMessage('estimated messageExpression cost', messageCost, STATIC_ESTIMATED_COST_LIMIT) })
      }
      total.observe(`${at}.messageExpression`, messageCost)
    }
    if (c.transitionRule) {
      if (ctx.uncorrelatable !== undefined) {
        errors.push({ type: 'Invalid', field: `${at}.rule`, value: entries[i].rule, detail: `oldSelf cannot be used on the uncorrelatable portion of the schema within ${ctx.uncorrelatable}` })
      }
    } else if (entries[i].optionalOldSelf !== undefined) {
      errors.push({ type: 'Invalid', field: `${at}.optionalOldSelf`, value: entries[i].optionalOldSelf, detail: 'may not be set if oldSelf is not used in rule' })
    }
  })
  return errors
}
