// Custom objects against the x-kubernetes-validations rules of their schema, as the reference's
// apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go: every node's rules compiled once,
// the object walked with its old value correlated for `oldSelf`, errors worded and placed as the
// reference places them, one cost budget for the whole object, and ratcheting on updates.
import { fieldErrorText, type FieldError } from '../../resources/status.js'
import type { JSONSchemaProps } from '../openapi-schema/types.js'
import { COST_LIMIT_MESSAGE } from './cost.js'
import { Correlated, oldItemsForRules, ratchetIndex, ratchetKey, shouldRatchet, type Ratchet } from './correlation.js'
import { checkFieldPath } from './rule-field-path.js'
import { BUDGET_EXHAUSTED_MESSAGE, compileRules, evaluateRule, ruleVariables, runWithinBudget, RuntimeBudget, type CompiledRule } from './rules.js'
import type { StructuralSchema } from './schema.js'
import { hasCelType, hasRules, ruleEntries, toStructural, type RuleEntry } from './structural.js'

interface NodeRule {
  entry: RuleEntry
  compiled: CompiledRule
  /** the rule's fieldPath as field.Path renders it, when it names a field of the node */
  fieldPath?: string
}

interface ValidatorNode {
  schema: StructuralSchema
  rules: NodeRule[]
  properties?: Map<string, ValidatorNode>
  additional?: ValidatorNode
  items?: ValidatorNode
  /** validators from the node's allOf entries */
  allOf: ValidatorNode[]
}

export interface CelValidator {
  /**
   * The field errors of `obj` (and of the update from `old`). Errors a rule raises on a value
   * that is unchanged since `old` are ratcheted: their text goes to `warnings` instead.
   */
  validate: (obj: unknown, old?: unknown, budget?: RuntimeBudget, warnings?: string[]) => FieldError[]
}

/** Largest messageExpression result the reference uses (MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_BYTES = 5 * 1024

/**
 * The validator of one node: the rules of `validation` compiled against the type of `node`. The
 * two differ under allOf, whose entries hold rules (and nested properties) for the node they sit
 * on, as the reference's validator(validationSchema, nodeSchema).
 */
function buildNode (validation: StructuralSchema, node: StructuralSchema, resourceRoot: boolean): ValidatorNode | undefined {
  const entries = ruleEntries(validation)
  const compiled = entries.length === 0 ? [] : compileRules({ ...node, 'x-kubernetes-validations': validation['x-kubernetes-validations'] }, entries, { resourceRoot })
  const v: ValidatorNode = {
    schema: node,
    rules: entries.map((entry, i) => {
      const r: NodeRule = { entry, compiled: compiled[i] }
      if (entry.fieldPath !== undefined && entry.fieldPath !== '') {
        const checked = checkFieldPath(entry.fieldPath, node)
        if (checked.ok) r.fieldPath = checked.path
      }
      return r
    }),
    allOf: []
  }
  const embedded = (s: StructuralSchema): boolean => s['x-kubernetes-embedded-resource'] === true
  for (const [name, sub] of Object.entries(validation.properties ?? {})) {
    // Only properties on the node's own structure, with a CEL type, are validated.
    const nodeSub = node.properties !== undefined && Object.hasOwn(node.properties, name) ? node.properties[name] : undefined
    if (nodeSub === undefined || !hasCelType(nodeSub)) continue
    const child = buildNode(sub, nodeSub, embedded(nodeSub))
    if (child !== undefined) (v.properties ??= new Map()).set(name, child)
  }
  if (typeof validation.additionalProperties === 'object' && typeof node.additionalProperties === 'object') {
    v.additional = buildNode(validation.additionalProperties, node.additionalProperties, embedded(node.additionalProperties))
  }
  if (validation.items !== undefined && node.items !== undefined) v.items = buildNode(validation.items, node.items, embedded(node.items))
  for (const entry of validation.allOf ?? []) {
    const a = buildNode(entry, node, resourceRoot)
    if (a !== undefined) v.allOf.push(a)
  }
  const empty = v.rules.length === 0 && v.properties === undefined && v.additional === undefined && v.items === undefined && v.allOf.length === 0
  return empty ? undefined : v
}

/** The validator of a CRD version's schema; undefined when no node of it has rules. */
export function celValidator (schema: JSONSchemaProps | StructuralSchema): CelValidator | undefined {
  const s = toStructural(schema)
  if (!hasRules(s) || !hasCelType(s)) return undefined
  const root = buildNode(s, s, true)
  if (root === undefined) return undefined
  return {
    validate (obj, old, budget = new RuntimeBudget(), warnings = []) {
      const walk = new Walk(budget, warnings)
      walk.node(root, '', obj, old, { current: new Correlated(obj, old, s) })
      return walk.errors
    }
  }
}

const ruleText = (e: RuleEntry): string => e.message !== undefined && e.message.length > 0 ? e.message.trim() : e.rule.trim()
const staticMessage = (e: RuleEntry): string => e.message !== undefined && e.message.length > 0 ? e.message.trim() : `failed rule: ${ruleText(e)}`
const child = (path: string, name: string): string => path === '' ? name : `${path}.${name}`
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function errorForReason (field: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden': return { type: 'Forbidden', field, detail }
    case 'FieldValueRequired': return { type: 'Required', field, detail }
    case 'FieldValueDuplicate': return { type: 'Duplicate', field, value: type }
    default: return { type: 'Invalid', field, value: type, detail }
  }
}

// The engine's runtime error texts, in cel-go's words where they differ (the reference lists
// "no such key: {key}, index out of bounds: {index}, integer overflow, division by zero"); cel-go's
// overload error at run time names no types.
function celGoRuntimeError (message: string): string {
  if (/^no such overload/i.test(message)) return 'no such overload'
  const index = /^No such key: index out of bounds, index (-?\d+)/.exec(message)
  if (index !== null) return `index out of bounds: ${index[1]}`
  if (message.startsWith('integer overflow')) return 'integer overflow'
  if (message === 'modulo by zero') return 'modulus by zero'
  return message.replace(/^No such key: /, 'no such key: ')
}

class Walk {
  readonly errors: FieldError[] = []
  /** set once the budget or a per-call limit is exhausted: no further rule runs */
  private stopped = false
  constructor (private readonly budget: RuntimeBudget, private readonly warnings: string[]) {}

  node (v: ValidatorNode, path: string, obj: unknown, old: unknown, ratchet: Ratchet): void {
    // Rules see non-null values only; a rule on the parent can check for null.
    if (this.stopped || obj === null || obj === undefined) return
    if (old === null) old = undefined
    this.rules(v, path, obj, old, ratchet)
    // allOf errors are not ratcheted by the node's own correlation, only by its parent's.
    for (const a of v.allOf) {
      if (this.stopped) return
      this.node(a, path, obj, old, { parent: ratchet.parent })
    }
    if (this.stopped) return
    if (Array.isArray(obj)) {
      if (v.items === undefined) return
      const oldItems = oldItemsForRules(v.schema, old)
      for (let i = 0; i < obj.length && !this.stopped; i++) {
        this.node(v.items, `${path}[${i}]`, obj[i], oldItems?.get(obj[i]), ratchetIndex(ratchet, i))
      }
    } else if (isObject(obj)) {
      // Maps correlate by key when their map type is granular, atomic or unset (every valid one).
      const mapType = v.schema['x-kubernetes-map-type']
      const correlatable = mapType === undefined || mapType === 'granular' || mapType === 'atomic'
      const oldMap = correlatable && isObject(old) ? old : undefined
      const oldOf = (k: string): unknown => oldMap !== undefined && Object.hasOwn(oldMap, k) ? oldMap[k] : undefined
      if (v.additional !== undefined) {
        for (const [k, x] of Object.entries(obj)) {
          if (this.stopped) return
          this.node(v.additional, `${path}[${k}]`, x, oldOf(k), ratchetKey(ratchet, k))
        }
      }
      if (v.properties !== undefined) {
        for (const [k, x] of Object.entries(obj)) {
          const sub = v.properties.get(k)
          if (this.stopped) return
          if (sub !== undefined) this.node(sub, child(path, k), x, oldOf(k), ratchetKey(ratchet, k))
        }
      }
    }
  }

  private stop (error: FieldError): void {
    this.errors.push(error)
    this.stopped = true
  }

  private rules (v: ValidatorNode, path: string, obj: unknown, old: unknown, ratchet: Ratchet): void {
    if (v.rules.length === 0) return
    const type = v.schema.type ?? ''
    // field.Path renders the root (a nil path) as <nil>.
    const field = path === '' ? '<nil>' : path
    if (this.budget.remaining <= 0) return this.stop({ type: 'Invalid', field, value: type, detail: BUDGET_EXHAUSTED_MESSAGE })
    for (const { entry, compiled, fieldPath } of v.rules) {
      if (compiled.error !== undefined) {
        this.errors.push({ type: 'Invalid', field, value: type, detail: `rule compile error: ${compiled.error}` })
        continue
      }
      const outcome = evaluateRule(compiled, obj, old, this.budget)
      if (outcome.ok === 'skipped' || compiled.program === undefined) continue
      if (!outcome.ok) {
        if (outcome.costExceeded) {
          const detail = outcome.error === BUDGET_EXHAUSTED_MESSAGE
            ? BUDGET_EXHAUSTED_MESSAGE
            : `'${COST_LIMIT_MESSAGE}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(entry)}`
          return this.stop({ type: 'Invalid', field, value: type, detail })
        }
        const err = celGoRuntimeError(outcome.error)
        const detail = err.startsWith('no such overload')
          ? `'${err}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(entry)}`
          : `${err} evaluating rule: ${ruleText(entry)}`
        this.errors.push({ type: 'Invalid', field, value: type, detail })
        continue
      }
      if (outcome.value === true) continue
      const at = fieldPath === undefined ? field : child(path, fieldPath)
      // Ratcheting: a rule that does not read oldSelf, failing on an unchanged value, only warns.
      const ratcheted = !compiled.transitionRule && shouldRatchet(ratchet)
      const report = (e: FieldError): void => {
        if (ratcheted) this.warnings.push(`${e.field}: ${fieldErrorText(e)}`)
        else this.errors.push(e)
      }
      let detail: string | undefined
      if (compiled.message !== undefined) {
        const vars = ruleVariables(compiled, obj, old)
        const r = vars === undefined ? undefined : runWithinBudget(compiled.message, vars, this.budget)
        if (r !== undefined && !r.ok && r.costExceeded) {
          report({
            type: 'Invalid',
            field: at,
            value: type,
            detail: r.error === BUDGET_EXHAUSTED_MESSAGE
              ? 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'
              : `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(entry.messageExpression ?? "")}`
          })
          this.stopped = true
          return
        }
        // Any other failure of the messageExpression falls back to the static message.
        if (r?.ok === true && typeof r.value === 'string') {
          const m = r.value.trim()
          if (m !== '' && !m.includes('\n') && Buffer.byteLength(m) <= MAX_MESSAGE_BYTES) detail = m
        }
      }
      report(errorForReason(at, type, detail ?? staticMessage(entry), entry.reason))
    }
  }
}
