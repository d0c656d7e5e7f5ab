// MutatingAdmissionPolicy (behind its feature gate): every stored policy with its bindings,
// applied in process in the mutating phase, before the mutating webhooks, as the reference's
// mutating dispatcher: the policy's matchConstraints, then each binding's matchResources, its
// parameters, the match conditions, then the mutations in order. A policy that changed the
// object asks the chain for a second mutating run, in which IfNeeded policies run again when
// something after them changed it. Failures follow each policy's failurePolicy; the first one
// not ignored refuses the request (403, reason Invalid, every failure a cause).
import { randomUUID } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AdmissionAttributes } from '../../resources/admission.js'
import type { AnyObject } from '../../resources/define.js'
import { ApiError, forbidden } from '../../resources/status.js'
import { admittedView, fromForm, requestFormOf, toForm } from '../../resources/resource-forms.js'
import { convertDyn } from '../../machinery/cel/types.js'
import { AuthorizerSession, CelAuthorizer } from '../../machinery/cel/admission.js'
import { exempt } from '../webhooks/matching.js'
import { graft, reinvokeState, requireReinvokingPrevious } from '../reinvocation.js'
import { ConfigurationError, collectParams, matchResources, paramResource } from './matching.js'
import { PolicyEvaluator } from './evaluate.js'
import { MutationError, applyMutation, checkMutated, compileMutatingPolicy } from './mutate.js'
import { namespaceOf, policySource, requestValues } from './sources.js'

const PLUGIN = 'MutatingAdmissionPolicy'

interface PolicyError { policy: string, binding: string, message: string }

/** admission.NewForbidden with the first failure's message, the reason Invalid, and every failure as a cause. */
function denial (a: AdmissionAttributes, errors: PolicyError[]): ApiError {
  const form = requestFormOf(a)
  const name = a.name !== '' ? a.name : String((a.object ?? a.oldObject)?.metadata?.name ?? '')
  const messages = errors.map(e => `policy '${e.policy}' with binding '${e.binding}' denied request: ${e.message}`)
  const base = forbidden({ group: form.group, resource: form.resource }, name, messages[0]!)
  return new ApiError(403, 'Invalid', messages[0]!, { ...base.status.details, causes: messages.map(message => ({ message })) })
}

export default fp(async function mutatingAdmissionPolicy (fastify: FastifyInstance) {
  const policiesWithBindings = policySource(fastify, { policies: 'mutatingadmissionpolicies', bindings: 'mutatingadmissionpolicybindings' }, compileMutatingPolicy)
  const enabled = fastify.hasDecorator('featureGates') && fastify.featureGates.enabled('MutatingAdmissionPolicy')
  const observe = (policy: string, binding: string, errorType: 'no_error' | 'invalid_error' | 'compile_error', seconds: number): void => {
    fastify.metrics?.mutatingPolicyCheck(policy, binding, errorType, seconds)
  }

  fastify.admission.add({
    name: PLUGIN,
    // No object, nothing to mutate (a delete); the gate off, the plugin is inert as the reference's is unregistered.
    handles: (a) => enabled && a.object !== undefined && !exempt(a),
    async mutate (a) {
      const bound = policiesWithBindings()
      if (bound.length === 0) return
      const state = reinvokeState(a, PLUGIN)
      const reinvoking = a.reinvocation?.isReinvoke === true
      // Something after the policies changed the object: the IfNeeded ones run again.
      if (reinvoking && !isDeepStrictEqual(state.lastOutput, a.object)) requireReinvokingPrevious(state)
      const errors: PolicyError[] = []
      const session = fastify.hasDecorator('authz') ? new AuthorizerSession((attrs) => fastify.authz.authorize(attrs)) : undefined
      const authorizer = session === undefined ? null : new CelAuthorizer(session, a.user)
      const uid = randomUUID()
      const view = admittedView(a)
      let namespaceObject: unknown
      try {
        for (const { policy, bindings } of bound) {
          const form = await matchResources(policy.matchConstraints, a)
          if (form === undefined) continue
          namespaceObject ??= await namespaceOf(a)
          const paramKind = policy.paramKind === undefined ? undefined : paramResource(policy.paramKind, fastify.resources.all().map(s => s.resource))
          // The form's own schema guides the merge; another group's form of the kind merges untyped.
          const schema = view === undefined && form.conversion === undefined ? a.resource.schema as Record<string, any> : undefined
          for (const binding of bindings) {
            if (await matchResources(binding.matchResources, a) === undefined) continue
            let params: Array<AnyObject | undefined>
            try {
              params = await collectParams(policy.paramKind, paramKind, binding.paramRef, a)
            } catch (err) {
              if (!(err instanceof ConfigurationError)) throw err
              if (policy.failurePolicy === 'Fail') errors.push({ policy: policy.name, binding: binding.name, message: `failed to configure binding: ${err.message}` })
              continue
            }
            for (const param of params) {
              const key = JSON.stringify([policy.name, binding.name, param?.metadata?.namespace ?? '', param?.metadata?.name ?? ''])
              const activation = () => ({ vars: { ...requestValues(a, uid, form), namespaceObject, authorizer, params: param === undefined ? null : convertDyn(param) }, ...(session === undefined ? {} : { session }) })
              const m = await new PolicyEvaluator(policy, activation()).matches()
              if (m.error !== undefined) {
                if (policy.failurePolicy === 'Fail') errors.push({ policy: policy.name, binding: binding.name, message: m.error })
                continue
              }
              if (!m.matches) continue
              if (reinvoking && !state.reinvoke.has(key)) continue
              const before = structuredClone(a.object)
              for (const mutation of policy.mutations) {
                const start = performance.now()
                try {
                  // Each mutation sees the object as the one before it left it.
                  const shown = view !== undefined ? a.object! : toForm(a.object!, form)
                  const mutated = await applyMutation(new PolicyEvaluator(policy, activation()), mutation, shown, schema)
                  const back = view !== undefined ? mutated : fromForm(mutated, form, a.resource)
                  if (view === undefined) checkMutated(back, a.resource)
                  if (!isDeepStrictEqual(back, a.object)) graft(a.object!, back)
                  observe(policy.name, binding.name, 'no_error', (performance.now() - start) / 1000)
                } catch (err) {
                  if (!(err instanceof MutationError)) throw err
                  observe(policy.name, binding.name, err.message.startsWith('compilation error') ? 'compile_error' : 'invalid_error', (performance.now() - start) / 1000)
                  if (policy.failurePolicy === 'Fail') errors.push({ policy: policy.name, binding: binding.name, message: err.message })
                }
              }
              if (!isDeepStrictEqual(before, a.object)) {
                requireReinvokingPrevious(state)
                a.reinvocation?.requestReinvoke()
              }
              if (policy.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(key)
            }
          }
        }
      } finally {
        state.lastOutput = a.object === undefined ? undefined : structuredClone(a.object)
      }
      if (errors.length > 0) throw denial(a, errors)
    }
  })
}, { name: 'admission:mutating-admission-policy', dependencies: ['admission'] })
