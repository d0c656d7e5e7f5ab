// The scale subresource: autoscaling/v1 Scale read from and written to a kind's replica counts
// (a workload's spec.replicas and status.replicas, or the paths a CRD names), with the pods'
// selector as a string, as the reference's scale storages do.
import type { AnyObject, SubresourceDefinition } from './define.js'
import { invalid } from './status.js'

export interface ScalePaths {
  specReplicasPath: string
  statusReplicasPath: string
  /** Where the selector string is held (a CRD's labelSelectorPath). */
  labelSelectorPath?: string
  /** The selector string computed from the parent (a workload's spec.selector), instead of a path. */
  selector?: (parent: AnyObject) => string | undefined
}

const segments = (path: string): string[] => path.replace(/^\./, '').split('.')

function read (obj: AnyObject, path: string): unknown {
  let v: unknown = obj
  for (const s of segments(path)) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !Object.hasOwn(v, s)) return undefined
    v = (v as AnyObject)[s]
  }
  return v
}

/** A copy of `obj` with `value` at `path`, the objects on the way created or copied. */
function written (obj: AnyObject, path: string, value: unknown): AnyObject {
  const [head, ...rest] = segments(path)
  const out = { ...obj }
  const here = out[head!]
  const child = typeof here === 'object' && here !== null && !Array.isArray(here) ? here as AnyObject : {}
  Object.defineProperty(out, head!, { value: rest.length === 0 ? value : written(child, rest.join('.'), value), enumerable: true, writable: true, configurable: true })
  return out
}

const replicasAt = (obj: AnyObject, path: string): number => {
  const v = read(obj, path)
  return typeof v === 'number' && Number.isInteger(v) ? v : 0
}

export function scaleSubresource (paths: ScalePaths): SubresourceDefinition {
  return {
    merge: (incoming, existing) => written(existing, paths.specReplicasPath, read(incoming, paths.specReplicasPath)),
    view: {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      toView (parent) {
        const m = parent.metadata ?? {}
        const metadata: AnyObject = { name: m.name }
        if (m.namespace !== undefined) metadata.namespace = m.namespace
        Object.assign(metadata, { uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp })
        const replicas = replicasAt(parent, paths.specReplicasPath)
        const status: AnyObject = { replicas: replicasAt(parent, paths.statusReplicasPath) }
        const selector = paths.selector !== undefined ? paths.selector(parent) : paths.labelSelectorPath === undefined ? undefined : read(parent, paths.labelSelectorPath)
        if (typeof selector === 'string' && selector !== '') status.selector = selector
        return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata, spec: replicas === 0 ? {} : { replicas }, status }
      },
      fromView (view, parent) {
        const replicas = view.spec?.replicas ?? 0
        const name = String(view.metadata?.name ?? parent.metadata.name)
        if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
          throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [{ type: 'Invalid', field: 'spec.replicas', value: replicas, detail: 'must be an integer' }])
        }
        if (replicas < 0) throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [{ type: 'Invalid', field: 'spec.replicas', value: replicas, detail: 'must be greater than or equal to 0' }])
        return written(parent, paths.specReplicasPath, replicas)
      }
    }
  }
}
