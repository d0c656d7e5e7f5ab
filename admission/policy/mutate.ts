// One MutatingAdmissionPolicy compiled (once per stored version) and its mutations applied for
// one binding and parameter, as the reference's mutating dispatcher and patch/: each mutation's
// expression evaluated against the object as the previous one left it; an apply configuration
// (`Object{...}`) merged as server-side apply merges (atomic lists, maps and structs refused), a
// JSON patch (`[JSONPatch{...}]`) applied as RFC 6902 (a failed `test` leaves the object as it
// is). A failure is a MutationError, which the plugin reports under the policy's failurePolicy;
// a result the kind refuses is a 500, as the reference's decoding of it is.
import type { AnyObject, Resource } from '../../resources/define.js'
import { internalError } from '../../resources/status.js'
import { checkAgainstSchema } from '../../machinery/schema-check.js'
import { atomicPaths, mergeApplied } from '../../machinery/typed-value.js'
import { JSONPatchValue, ObjectValue, celToJson, typeNameMismatches } from '../../machinery/cel/library/mutation.js'
import { applyWebhookPatch, PatchError, TestFailed } from '../webhooks/json-patch.js'
import { compilePolicyExpressions, expression, type Expression, type PolicyEvaluator, type PolicyExpressions } from './evaluate.js'

export interface Mutation { patchType: 'ApplyConfiguration' | 'JSONPatch', expression: Expression }

export interface CompiledMutatingPolicy extends PolicyExpressions {
  mutations: Mutation[]
  reinvocationPolicy: 'Never' | 'IfNeeded'
}

export function compileMutatingPolicy (p: AnyObject): CompiledMutatingPolicy {
  const spec: AnyObject = p.spec ?? {}
  const { common, scope } = compilePolicyExpressions(p, true)
  return {
    ...common,
    reinvocationPolicy: spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    mutations: (spec.mutations as AnyObject[] | undefined ?? []).flatMap((m): Mutation[] => {
      if (m?.patchType === 'ApplyConfiguration' && m.applyConfiguration != null) {
        return [{ patchType: 'ApplyConfiguration', expression: expression(String(m.applyConfiguration.expression ?? ''), 'object', scope) }]
      }
      if (m?.patchType === 'JSONPatch' && m.jsonPatch != null) {
        return [{ patchType: 'JSONPatch', expression: expression(String(m.jsonPatch.expression ?? ''), 'json-patch', scope) }]
      }
      return []
    })
  }
}

/** A mutation that failed: subject to the policy's failurePolicy. */
export class MutationError extends Error {}

const typeOf = (v: unknown): string => v === null ? 'null_type' : Array.isArray(v) ? 'list' : v instanceof Map ? 'map' : typeof v === 'bigint' ? 'int' : typeof v === 'number' ? 'double' : typeof v

/** The object `shown` (as the policy sees it) after one mutation; `schema` the shown form's, when known. */
export async function applyMutation (evaluator: PolicyEvaluator, m: Mutation, shown: AnyObject, schema: Record<string, any> | undefined): Promise<AnyObject> {
  const r = await evaluator.run(m.expression)
  if (!r.ok) throw new MutationError(r.error)
  return m.patchType === 'ApplyConfiguration' ? applyConfiguration(r.value, shown, schema) : jsonPatch(r.value, shown)
}

function applyConfiguration (value: unknown, shown: AnyObject, schema: Record<string, any> | undefined): AnyObject {
  if (!(value instanceof ObjectValue)) throw new MutationError(`unsupported return type from ApplyConfiguration expression: ${typeOf(value)}`)
  const mismatches = typeNameMismatches(value)
  if (mismatches.length > 0) throw new MutationError(`type mismatch: ${mismatches.join('\n')}`)
  const config = celToJson(value) as AnyObject
  const atomics = atomicPaths(config, schema)
  if (atomics.length > 0) throw new MutationError(`error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}`)
  // The configuration is of the object's own kind (the reference sets its group, version and kind).
  return mergeApplied(shown, { ...config, apiVersion: shown.apiVersion, kind: shown.kind }, schema) as AnyObject
}

function jsonPatch (value: unknown, shown: AnyObject): AnyObject {
  if (!Array.isArray(value)) throw new MutationError('type mismatch: JSONPatchType.expression should evaluate to array')
  const operations = value.map((v): AnyObject => {
    if (!(v instanceof JSONPatchValue)) throw new MutationError(`type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of ${typeOf(v)}`)
    const f = v.fields
    const op: AnyObject = { op: String(f.op ?? ''), path: String(f.path ?? '') }
    if (typeof f.from === 'string' && f.from !== '') op.from = f.from
    if (Object.hasOwn(f, 'value')) {
      if (f.value instanceof ObjectValue) {
        const mismatches = typeNameMismatches(f.value)
        if (mismatches.length > 0) throw new MutationError(`type mismatch: ${mismatches.join('\n')}`)
      }
      op.value = celToJson(f.value)
    }
    return op
  })
  try {
    return applyWebhookPatch(structuredClone(shown), operations)
  } catch (err) {
    if (err instanceof TestFailed) return shown
    if (err instanceof PatchError) throw new MutationError(`JSONPath: ${err.message}`)
    throw err
  }
}

/**
 * The mutated object checked as the kind's bodies are on the way in (a webhook's patched object
 * too): defaults filled, fields the kind does not have dropped; a value the kind refuses is a
 * 500, as the reference's decoding of the result is, whatever the failure policy.
 */
export function checkMutated (obj: AnyObject, resource: Pick<Resource, 'schema' | 'checkBody'>): void {
  const check = resource.checkBody?.(obj, true) ?? checkAgainstSchema(resource.schema, obj, true)
  const first = check.errors[0]
  if (first !== undefined) throw internalError(`${first.field}: ${first.detail ?? first.type}`)
}
