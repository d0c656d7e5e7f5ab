// A webhook's matchConditions (CEL, evaluated before the call, as the reference's
// matchconditions.Matcher): every condition true calls the webhook, any false skips it (a false
// wins over errors), an error is a call failure under the webhook's failurePolicy. The
// expressions see `object`, `oldObject` and `request` in the form the webhook is sent, and
// `authorizer` (this server's authorizer, as the requester).
import type { FastifyInstance } from 'fastify'
import type { AdmissionAttributes } from '../../resources/admission.js'
import type { ResourceForm } from '../../resources/resource-forms.js'
import type { CompiledExpression } from '../../machinery/cel/compile.js'
import { convertDyn } from '../../machinery/cel/types.js'
import { AuthorizerSession, CelAuthorizer, compileAdmissionExpression, evaluateAdmissionExpression } from '../../machinery/cel/admission.js'
import { reviewRequest } from './review.js'

type AnyObject = Record<string, any>

export interface MatchCondition { source: string, program?: CompiledExpression, error?: string }

/** Compiled once per stored configuration version (the dispatcher keeps hooks per version). */
export function compileMatchConditions (webhook: AnyObject): MatchCondition[] {
  return (webhook.matchConditions as AnyObject[] | undefined ?? []).map(c => {
    const source = String(c?.expression ?? '')
    const compiled = compileAdmissionExpression(source, 'bool', { params: false, authorizer: true })
    return compiled.ok ? { source, program: compiled.expression } : { source, error: compiled.error }
  })
}

export type ConditionsResult = { matches: true } | { matches: false, error?: string }

export async function evaluateMatchConditions (fastify: FastifyInstance, conditions: MatchCondition[], a: AdmissionAttributes, form: ResourceForm): Promise<ConditionsResult> {
  const { object, oldObject, ...request } = reviewRequest(a, '', 'v1', form).request as AnyObject
  const session = fastify.hasDecorator('authz') ? new AuthorizerSession((attrs) => fastify.authz.authorize(attrs)) : undefined
  const vars: Record<string, unknown> = {
    object: convertDyn(object ?? null),
    oldObject: convertDyn(oldObject ?? null),
    request: convertDyn(request),
    namespaceObject: null,
    authorizer: session === undefined ? null : new CelAuthorizer(session, a.user)
  }
  const errors: string[] = []
  for (const c of conditions) {
    if (c.program === undefined) { errors.push(`compilation error: ${c.error ?? ''}`); continue }
    const r = await evaluateAdmissionExpression(c.program, vars, session)
    if (!r.ok) { errors.push(`expression '${c.source}' resulted in error: ${r.error}`); continue }
    if (r.value !== true) return { matches: false }
  }
  if (errors.length > 0) return { matches: false, error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` }
  return { matches: true }
}
