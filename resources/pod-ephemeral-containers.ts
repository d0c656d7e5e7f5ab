// pods/ephemeralcontainers: how `kubectl debug` adds a container to a running pod. A write here
// changes only spec.ephemeralContainers (the rest of the pod, its status and the metadata a
// status write resets stay as stored), and may only add to them: as the reference's
// EphemeralContainersStrategy and ValidatePodEphemeralContainersUpdate.
import { isDeepStrictEqual } from 'node:util'
import { STATUS_ONLY_METADATA, type AnyObject, type FieldError, type SubresourceDefinition } from './define.js'
import { defaultPodSpec } from './pod-spec.js'
import { MIRROR_POD_ANNOTATION } from './naming.js'

const FIELD = 'spec.ephemeralContainers'

/** Pods are created without ephemeral containers: they come only through the subresource. */
export function ephemeralContainersOnCreate (pod: AnyObject): FieldError[] {
  return (pod.spec?.ephemeralContainers ?? []).length > 0 ? [{ type: 'Forbidden', field: FIELD, detail: 'cannot be set on create' }] : []
}

/** What changed in a container, one `-`/`+` pair of lines per field (the reference prints a diff here too). */
function fieldDiff (was: AnyObject, now: AnyObject): string {
  const lines: string[] = []
  for (const k of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (isDeepStrictEqual(was[k], now[k])) continue
    if (was[k] !== undefined) lines.push(`- ${k}: ${JSON.stringify(was[k])}`)
    if (now[k] !== undefined) lines.push(`+ ${k}: ${JSON.stringify(now[k])}`)
  }
  return lines.join('\n')
}

/** Existing ephemeral containers stay as they are; order is not kept by a patch, so each is found by name. */
function updateProblems (pod: AnyObject, old: AnyObject): FieldError[] {
  if (old.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
    return [{ type: 'Forbidden', field: '', detail: 'static pods do not support ephemeral containers' }]
  }
  const now = new Map<string, AnyObject>()
  for (const c of (pod.spec?.ephemeralContainers ?? []) as AnyObject[]) now.set(c.name, c)
  const errors: FieldError[] = []
  for (const was of (old.spec?.ephemeralContainers ?? []) as AnyObject[]) {
    const c = now.get(was.name)
    if (c === undefined) errors.push({ type: 'Forbidden', field: FIELD, detail: `existing ephemeral containers ${JSON.stringify(was.name)} may not be removed\n` })
    else if (!isDeepStrictEqual(was, c)) errors.push({ type: 'Forbidden', field: FIELD, detail: `existing ephemeral containers ${JSON.stringify(was.name)} may not be changed\n${fieldDiff(was, c)}` })
  }
  return errors
}

export const ephemeralContainersSubresource: SubresourceDefinition = {
  merge (incoming, existing) {
    const spec: AnyObject = { ...existing.spec }
    const list = incoming.spec?.ephemeralContainers
    if (list === undefined || list === null) delete spec.ephemeralContainers
    else spec.ephemeralContainers = structuredClone(list)
    // The defaults the reference's decoding gives an ephemeral container (pull policy from the image).
    defaultPodSpec(spec)
    return { ...existing, spec }
  },
  resetMetadata: STATUS_ONLY_METADATA,
  validateUpdate: updateProblems
}
