// CEL expressions in admission kinds (admission policies, webhooks' matchConditions): the checks
// the reference makes of them at write time. The ground floor cannot compile CEL itself (the
// engine is machinery's), so the composition root hands it a compiler (useExpressionCompiler);
// until it does, expressions are checked for presence and shape only.
import { Type } from '@sinclair/typebox'
import type { FieldError } from './status.js'
import { MapList } from './core-types.js'
import { keepZero, message } from './protobuf.js'
import { invalidEach, qualifiedNameProblems } from './validation.js'

/**
 * What an expression must evaluate to: `string-or-null` is an audit annotation's value, `object`
 * a mutation's apply configuration (`Object{...}`), `json-patch` its list of `JSONPatch{...}`.
 */
export type ExpressionResult = 'bool' | 'string' | 'string-or-null' | 'any' | 'object' | 'json-patch'

/** The optional variables an expression may read besides object, oldObject, request and namespaceObject. */
export interface ExpressionScope {
  params: boolean
  authorizer: boolean
  /** `variables`: the policy's own, declared before this expression */
  variables?: boolean
  /**
   * The policy's variables this expression may read, as written, in order: the write-time check
   * types each by its expression (the reference's composited compiler), so `variables.n > 'a'`
   * with an int `n` is refused; without them `variables` is dyn.
   */
  declaredVariables?: ReadonlyArray<{ name: string, expression: string }>
  /** A mutating policy's variables: they may build `Object{...}` and `JSONPatch{...}` values too (the reference's HasPatchTypes). */
  patchTypes?: boolean
}

/** The detail of the Invalid error a compile problem is ("compilation failed: ERROR: ..."), or undefined. */
export type ExpressionCompiler = (source: string, result: ExpressionResult, scope: ExpressionScope) => string | undefined

let compiler: ExpressionCompiler | undefined

/** Called once by the composition root with machinery's CEL compiler for admission expressions. */
export function useExpressionCompiler (c: ExpressionCompiler): void { compiler = c }

/** The compile problem of one expression, at `field`, as the reference's convertCELErrorToValidationError. */
export function expressionProblems (field: string, source: string, result: ExpressionResult, scope: ExpressionScope): FieldError[] {
  const detail = compiler?.(source, result, scope)
  return detail === undefined ? [] : [{ type: 'Invalid', field, value: source, detail }]
}

export const MAX_MATCH_CONDITIONS = 64

export const MatchCondition = Type.Object({
  name: Type.String({ description: 'A qualified name, unique within the list.' }),
  expression: Type.String({ description: 'A CEL expression that must evaluate to bool.' })
}, { additionalProperties: false, ...message('MatchCondition', { name: keepZero(1), expression: keepZero(2) }) })

export const MatchConditions = MapList(MatchCondition, ['name'])

type Obj = Record<string, any>

/** validateMatchConditions: at most 64, each named (qualified name, unique) and compiled as a bool. */
export function validateMatchConditions (list: Obj[] | undefined, field: string, scope: ExpressionScope): FieldError[] {
  const conditions = list ?? []
  const errors: FieldError[] = []
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push({ type: 'TooMany', field, value: conditions.length, detail: `must have at most ${MAX_MATCH_CONDITIONS} items` })
  const names = new Set<string>()
  conditions.forEach((c, i) => {
    const at = `${field}[${i}]`
    const expression = String(c?.expression ?? '').trim()
    if (expression === '') errors.push({ type: 'Required', field: `${at}.expression` })
    else errors.push(...expressionProblems(`${at}.expression`, expression, 'bool', scope))
    const name = String(c?.name ?? '')
    if (name === '') errors.push({ type: 'Required', field: `${at}.name` })
    else errors.push(...invalidEach(`${at}.name`, name, qualifiedNameProblems(name)))
    if (name !== '') {
      if (names.has(name)) errors.push({ type: 'Duplicate', field: `${at}.name`, value: name })
      names.add(name)
    }
  })
  return errors
}

const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'])

/** A variable's name must be a CEL identifier and not a reserved word. */
export const isCelIdentifier = (name: string): boolean => CEL_IDENTIFIER.test(name) && !CEL_RESERVED.has(name)
