// ValidatingAdmissionPolicy: every stored policy with its bindings, read from the kinds' watch
// caches at each request (a change is in force on every replica as soon as its cache has it),
// evaluated in process as the reference's validating dispatcher: the policy's matchConstraints,
// then each binding's matchResources, its parameters, the policy's expressions; a failed
// validation Denies (the first refusal, 422 or the validation's reason), Warns (a Warning header)
// or Audits (an audit annotation) as the binding says.
import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AdmissionAttributes } from '../../resources/admission.js'
import type { AnyObject } from '../../resources/define.js'
import type { CachedObject } from '../../storage/interface.js'
import { ApiError, forbidden, type StatusReason } from '../../resources/status.js'
import { ADMISSION_POLICY, GROUPS } from '../../resources/naming.js'
import { requestFormOf, type ResourceForm } from '../../resources/resource-forms.js'
import { convertDyn } from '../../machinery/cel/types.js'
import { AuthorizerSession, CelAuthorizer } from '../../machinery/cel/admission.js'
import { exempt } from '../webhooks/matching.js'
import { reviewRequest } from '../webhooks/review.js'
import { addWarnings } from '../webhooks/warnings.js'
import { ConfigurationError, collectParams, matchResources, paramResource } from './matching.js'
import { compilePolicy, evaluatePolicy, type CompiledPolicy, type Decision } from './evaluate.js'
import { namespaceOf, policySource, requestValues, type Binding } from './sources.js'

const PLUGIN = 'ValidatingAdmissionPolicy'
const MAX_AUDIT_VALUE = 10 * 1024

const CODES: Partial<Record<StatusReason, number>> = { Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 }

/** admission.NewForbidden's message and details, with the decision's reason and its code. */
function denial (a: AdmissionAttributes, message: string, reason: StatusReason): ApiError {
  const form = requestFormOf(a)
  const name = a.name !== '' ? a.name : String((a.object ?? a.oldObject)?.metadata?.name ?? '')
  const base = forbidden({ group: form.group, resource: form.resource }, name, message)
  return new ApiError(CODES[reason] ?? 500, reason, base.message, { ...base.status.details, causes: [{ message }] })
}

type ErrorType = 'no_error' | 'invalid_error' | 'compile_error'
const errorType = (d: Decision): ErrorType => d.errored ? (d.message.startsWith('compilation error') ? 'compile_error' : 'invalid_error') : 'no_error'

const actionsOf = (b: Binding): string[] => b.spec.validationActions ?? []

interface Denied { policy: string, binding?: string, message: string, reason: StatusReason }

export default fp(async function validatingAdmissionPolicy (fastify: FastifyInstance) {
  const policiesWithBindings = policySource(fastify, { policies: 'validatingadmissionpolicies', bindings: 'validatingadmissionpolicybindings' }, compilePolicy)
  const observe = (policy: string, binding: string, d: Decision, action: 'allow' | 'deny' | 'warn' | 'audit'): void => {
    fastify.metrics?.policyCheck(policy, binding, errorType(d), action, d.seconds)
  }

  fastify.admission.add({
    name: PLUGIN,
    handles: (a) => !exempt(a),
    async validate (a) {
      const bound = policiesWithBindings()
      if (bound.length === 0) return

      const denied: Denied[] = []
      const configError = (p: CompiledPolicy, b: Binding | undefined, err: Error): void => {
        if (p.failurePolicy === 'Ignore') return
        denied.push({ policy: p.name, ...(b === undefined ? {} : { binding: b.name }), message: `failed to configure ${b === undefined ? 'policy' : 'binding'}: ${err.message}`, reason: 'Invalid' })
      }
      const session = fastify.hasDecorator('authz') ? new AuthorizerSession((attrs) => fastify.authz.authorize(attrs)) : undefined
      const authorizer = session === undefined ? null : new CelAuthorizer(session, a.user)
      const uid = randomUUID()
      const requests = new Map<ResourceForm, Record<string, unknown>>()
      let namespaceObject: unknown

      for (const { policy, bindings: policyBindings } of bound) {
        const form = await matchResources(policy.matchConstraints, a)
        if (form === undefined) continue
        let base = requests.get(form)
        if (base === undefined) {
          base = requestValues(a, uid, form)
          requests.set(form, base)
        }
        if (namespaceObject === undefined) namespaceObject = await namespaceOf(a)
        const paramKind = policy.paramKind === undefined ? undefined : paramResource(policy.paramKind, fastify.resources.all().map(s => s.resource))
        const collected = new Map<string, string[]>()
        for (const binding of policyBindings) {
          if (await matchResources(binding.matchResources, a) === undefined) continue
          let params: Array<AnyObject | undefined>
          try {
            params = await collectParams(policy.paramKind, paramKind, binding.paramRef, a)
          } catch (err) {
            if (!(err instanceof ConfigurationError)) throw err
            configError(policy, binding, err)
            continue
          }
          for (const param of params) {
            const vars: Record<string, unknown> = { ...base, namespaceObject, authorizer, params: param === undefined ? null : convertDyn(param) }
            const result = await evaluatePolicy(policy, { vars, ...(session === undefined ? {} : { session }) })
            for (const d of result.decisions) {
              if (d.action === 'admit') {
                if (d.errored) observe(policy.name, binding.name, d, 'allow')
                continue
              }
              for (const action of actionsOf(binding)) {
                if (action === 'Deny') {
                  denied.push({ policy: policy.name, binding: binding.name, message: d.message, reason: d.reason ?? 'Invalid' })
                  observe(policy.name, binding.name, d, 'deny')
                } else if (action === 'Warn') {
                  addWarnings(a.warnings, [`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${d.message}`])
                  observe(policy.name, binding.name, d, 'warn')
                } else if (action === 'Audit') {
                  a.auditAnnotations[ADMISSION_POLICY.validationFailureAnnotation] = JSON.stringify([{ message: d.message, policy: policy.name, binding: binding.name, expressionIndex: d.index, validationActions: actionsOf(binding) }])
                  observe(policy.name, binding.name, d, 'audit')
                }
              }
            }
            for (const { key, value } of result.auditAnnotations) {
              const values = collected.get(key) ?? []
              const v = value.slice(0, MAX_AUDIT_VALUE)
              if (!values.includes(v)) values.push(v)
              collected.set(key, values)
            }
          }
        }
        for (const [key, values] of collected) a.auditAnnotations[`${policy.name}/${key}`] = values.join(', ')
      }
      const first = denied[0]
      if (first === undefined) return
      const message = first.binding === undefined
        ? `ValidatingAdmissionPolicy '${first.policy}' denied request: ${first.message}`
        : `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.message}`
      throw denial(a, message, first.reason)
    }
  })
}, { name: 'admission:validating-admission-policy', dependencies: ['admission'] })
