// MutatingAdmissionWebhook: matching mutating webhooks called one after another, each JSON
// patch applied before the next call. A webhook that changed the object asks the chain for a
// second mutating run: the built-in plugins see the change, and webhooks with
// reinvocationPolicy IfNeeded are called again when something after them changed the object.
import fp from 'fastify-plugin'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import type { AdmissionAttributes, AdmissionOptions } from '../../resources/admission.js'
import type { AnyObject } from '../../resources/define.js'
import { ADMISSION_WEBHOOK } from '../../resources/naming.js'
import { checkAgainstSchema } from '../../machinery/schema-check.js'
import { createDispatcher, type Dispatcher, type Match } from './dispatcher.js'
import { admittedView, fromForm, fromOutOfProcessForm, toForm } from '../../resources/resource-forms.js'
import { applyWebhookPatch, PatchError } from './json-patch.js'
import { graft, reinvokeState, requireReinvokingPrevious } from '../reinvocation.js'

const PLUGIN = 'MutatingAdmissionWebhook'

/** Applies one webhook's patch to the object; whether it changed. A patch that cannot be applied is a 500 whatever the policy. */
async function applyOperations (d: Dispatcher, { hook, form }: Match, a: AdmissionAttributes, operations: AnyObject[], shown: AnyObject | undefined): Promise<boolean> {
  const name = String(hook.webhook.name)
  const view = admittedView(a)
  let patched: AnyObject
  try {
    // The patch is written against the object as the webhook saw it (in the form its rules named), and converted back.
    // Through a subresource served as another kind (a Scale) the object is that kind's: patched as it is.
    patched = view !== undefined
      ? applyWebhookPatch(structuredClone(a.object!), operations)
      : shown !== undefined
        ? await fromOutOfProcessForm(a.resource, applyWebhookPatch(structuredClone(shown), operations))
        : fromForm(applyWebhookPatch(structuredClone(toForm(a.object!, form)), operations), form, a.resource)
  } catch (err) {
    if (!(err instanceof PatchError)) throw err
    throw d.internalFailure(hook, a, `JSON patch of webhook "${name}" could not be applied: ${err.message}`)
  }
  // A view is checked when it is written back into its parent (the store refuses a bad one with 422).
  // The kind's own body check when it has one (a custom resource's: defaults, then what its
  // schema does not declare pruned), as its bodies are checked on the way in.
  const check = view !== undefined ? { errors: [] } : a.resource.checkBody?.(patched, true) ?? checkAgainstSchema(a.resource.schema, patched, true)
  if (check.errors.length > 0) {
    const first = check.errors[0]!
    throw d.internalFailure(hook, a, `the object webhook "${name}" returned is not a valid ${a.resource.kind}: ${first.field}: ${first.detail ?? first.type}`)
  }
  if (isDeepStrictEqual(patched, a.object)) return false
  graft(a.object!, patched)
  return true
}

/**
 * Calls one webhook and applies its patch; whether the object changed. Its mutation annotation
 * is written however the call ends (an ignored failure, a refusal), as the reference's is.
 */
async function callAndApply (d: Dispatcher, match: Match, a: AdmissionAttributes, round: number, index: number): Promise<boolean> {
  const { hook } = match
  const id = `round_${round}_index_${index}`
  let changed = false
  try {
    const answer = await d.call(match, a, round, index)
    if (answer?.operations === undefined) return false
    changed = await applyOperations(d, match, a, answer.operations, answer.shown)
    // In the reference's field order (PatchAuditAnnotation).
    a.auditAnnotations[`${ADMISSION_WEBHOOK.patchAnnotationPrefix}${id}`] = JSON.stringify({
      configuration: hook.configuration, webhook: hook.webhook.name, patch: answer.operations, patchType: 'JSONPatch'
    })
    return changed
  } finally {
    a.auditAnnotations[`${ADMISSION_WEBHOOK.mutationAnnotationPrefix}${id}`] = JSON.stringify({ configuration: hook.configuration, webhook: hook.webhook.name, mutated: changed })
  }
}

export default fp(async function mutatingAdmissionWebhook (fastify: FastifyInstance, opts: AdmissionOptions) {
  const d = createDispatcher(fastify, { plugin: PLUGIN, type: 'admit', plural: 'mutatingwebhookconfigurations', webhookServiceAddresses: opts.webhookServiceAddresses })
  // The whole patch: it may carry what a Metadata event must not show (a Secret's data).
  fastify.admission.annotationLevel(ADMISSION_WEBHOOK.patchAnnotationPrefix, 'Request')
  fastify.admission.add({
    name: PLUGIN,
    // Every write asks each plugin: with no configuration stored, not even a look-up is made.
    handles: () => d.anyConfigured(),
    async mutate (a) {
      const matches = await d.matching(a)
      if (matches.length === 0) return
      const r = a.reinvocation
      const state = reinvokeState(a, PLUGIN)
      const round = r?.isReinvoke === true ? 1 : 0
      // Built-in plugins changed the object since the last webhook saw it: IfNeeded webhooks run again.
      if (round === 1 && !isDeepStrictEqual(state.lastOutput, a.object)) requireReinvokingPrevious(state)
      try {
        for (const [index, match] of matches.entries()) {
          const hook = match.hook
          if (round === 1 && !state.reinvoke.has(hook.key)) continue
          const changed = await callAndApply(d, match, a, round, index)
          if (changed) {
            requireReinvokingPrevious(state)
            r?.requestReinvoke()
          }
          if (hook.webhook.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(hook.key)
        }
      } finally {
        state.lastOutput = a.object === undefined ? undefined : structuredClone(a.object)
      }
    }
  })
}, { name: 'admission:mutating-webhook', dependencies: ['admission'] })
