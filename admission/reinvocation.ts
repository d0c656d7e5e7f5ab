// What the mutating plugins that take part in reinvocation share (the webhooks' and the
// admission policies'): which IfNeeded hooks ran, which must run again, the object as they last
// left it; and how a mutated object is put in place of the admitted one.
import type { AdmissionAttributes } from '../resources/admission.js'
import type { AnyObject } from '../resources/define.js'

/** What the two runs share for one plugin: IfNeeded hooks that ran, those to run again, the last output. */
export interface ReinvokeState {
  previouslyInvoked: Set<string>
  reinvoke: Set<string>
  lastOutput?: AnyObject
}

/** The plugin's state for this request, made on its first run. */
export function reinvokeState (a: AdmissionAttributes, plugin: string): ReinvokeState {
  let state = a.reinvocation?.state.get(plugin) as ReinvokeState | undefined
  if (state === undefined) {
    state = { previouslyInvoked: new Set(), reinvoke: new Set() }
    a.reinvocation?.state.set(plugin, state)
  }
  return state
}

/** Something changed the object: every IfNeeded hook that ran before runs again in the second run. */
export function requireReinvokingPrevious (s: ReinvokeState): void {
  for (const key of s.previouslyInvoked) s.reinvoke.add(key)
  s.previouslyInvoked.clear()
}

const setOwn = (o: AnyObject, key: string, value: unknown): void => {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * Replaces `target`'s content with `source`'s, keeping the identity of target and its metadata
 * (the store holds both). Keys are own data properties: a `__proto__` key stays a key.
 */
export function graft (target: AnyObject, source: AnyObject): void {
  const meta = target.metadata as AnyObject | undefined
  for (const k of Object.keys(target)) if (!Object.hasOwn(source, k)) delete target[k]
  for (const [k, v] of Object.entries(source)) {
    if (k === 'metadata' && meta !== undefined && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      for (const mk of Object.keys(meta)) if (!Object.hasOwn(v, mk)) delete meta[mk]
      for (const [mk, mv] of Object.entries(v as AnyObject)) setOwn(meta, mk, mv)
      target.metadata = meta
    } else setOwn(target, k, v)
  }
}
