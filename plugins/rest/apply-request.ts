// An apply PATCH through the generic store: merged into the live object under the store's
// compare-and-swap loop (admission sees UPDATE), or created when there is none (CREATE).
import type { AnyObject } from '../../resources/define.js'
import { conflict } from '../../resources/status.js'
import { applyConfiguration, checkApplyBody, type ApplyContext } from '../../machinery/apply.js'
import { now, type Caller, type GenericStore } from './store.js'
import type { WriteOptions } from './options.js'
import { checkNameOnUrl } from './object-identity.js'

export interface ApplyRequest {
  namespace: string
  name: string
  subresource: string
  body: unknown
  /** The upstream group alias the path used, if any (its apiVersion is accepted). */
  alias?: string
  options: WriteOptions
  caller: Caller
}

export async function serverSideApply (store: GenericStore, req: ApplyRequest): Promise<{ json: string, created: boolean }> {
  const r = store.resource
  const config = checkApplyBody(req.body, r, req.alias)
  const meta = (config.metadata ?? {}) as AnyObject
  const ctx: ApplyContext = {
    resource: r,
    who: { manager: req.options.fieldManager ?? '', apiVersion: r.apiVersion, subresource: req.subresource, time: now() },
    force: req.options.force,
    hasStatus: r.subresources.status !== undefined,
    resetMetadata: req.subresource === '' ? undefined : r.subresources[req.subresource]!.resetMetadata
  }
  // A resourceVersion in the configuration is a precondition; without one the apply is unconditional.
  const conditional = typeof meta.resourceVersion === 'string' && meta.resourceVersion !== ''
  const change = (old: AnyObject): AnyObject => {
    const applied = applyConfiguration(old, config, ctx)
    if (!conditional) delete applied.metadata.resourceVersion
    return applied
  }
  const applyCreate = (): AnyObject => {
    if (typeof meta.uid === 'string' && meta.uid !== '') {
      throw conflict(store.gr, req.name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: `)
    }
    checkNameOnUrl(meta.name, req.name)
    const created = applyConfiguration(undefined, config, ctx)
    created.metadata.name = req.name
    return created
  }
  return await store.update(req.namespace, req.name, change, { ...req.options, subresource: req.subresource, applyCreate, managedFieldsSet: true }, req.caller)
}
