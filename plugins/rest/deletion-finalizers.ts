// Which garbage-collection finalizer a DELETE leaves on an object (the reference store's
// deletionFinalizersForGarbageCollection): `orphan` asks the collector to strip the owner's
// reference from its dependents first, `foregroundDeletion` to delete its blocking dependents
// first. An explicit option wins over a finalizer already present, which wins over the kind's
// default.
import { GC_FINALIZERS, type AnyObject, type Resource } from '../../resources/define.js'
import type { DeleteOptions } from './options.js'

function orphans (r: Resource, finalizers: string[], o: DeleteOptions): boolean {
  if (o.orphanDependents !== undefined) return o.orphanDependents
  if (o.propagationPolicy !== undefined) return o.propagationPolicy === 'Orphan'
  if (finalizers.includes(GC_FINALIZERS.orphan)) return true
  if (finalizers.includes(GC_FINALIZERS.foreground)) return false
  return r.defaultPropagationPolicy === 'Orphan'
}

function foreground (finalizers: string[], o: DeleteOptions): boolean {
  if (o.orphanDependents !== undefined) return false
  if (o.propagationPolicy !== undefined) return o.propagationPolicy === 'Foreground'
  if (finalizers.includes(GC_FINALIZERS.foreground)) return true
  return false
}

/** The object's finalizers after a DELETE with these options; undefined when they stay as they are. */
export function finalizersForDeletion (r: Resource, obj: AnyObject, o: DeleteOptions): string[] | undefined {
  if (r.defaultPropagationPolicy === 'Unsupported') return undefined
  const current: string[] = obj.metadata?.finalizers ?? []
  const next = current.filter(f => f !== GC_FINALIZERS.orphan && f !== GC_FINALIZERS.foreground)
  if (orphans(r, current, o)) next.push(GC_FINALIZERS.orphan)
  if (foreground(current, o)) next.push(GC_FINALIZERS.foreground)
  const same = next.length === current.length && next.every(f => current.includes(f))
  return same ? undefined : next
}
