// The generic store: every verb of every kind, in the reference server's order (admission,
// strategy, validation, storage), driven by the kind's definition alone.
import { isDeepStrictEqual } from 'node:util'
import { alreadyExists, badRequest, conflict, invalid, notFound, OPTIMISTIC_LOCK_MESSAGE, strictDecodingError } from '../../resources/status.js'
import { type AnyObject, type RequestContext, type StreamLocation, type VirtualContext } from '../../resources/define.js'
import { StorageError, type StoredObject } from '../../storage/interface.js'
import { dedupOwnerReferences } from '../../resources/owner-references.js'
import { checkAgainstSchema } from '../../machinery/schema-check.js'
import { validateMetadata } from './metadata-validation.js'
import { checkUpdateName, decodedMetadata } from './object-identity.js'
import { checkTypeMeta } from './type-meta.js'
import { admissionAttributes } from './admission-attributes.js'
import { recordManagedFields, sentEntryProblems } from '../../machinery/managed-fields.js'
import { managedFieldsProblems } from '../../machinery/field-manager-names.js'
import { clearServerSetMetadata, keepUnowned, now, placeInNamespace, settleCreatedMetadata, settleUpdatedMetadata } from './admitted-metadata.js'
import { newerThan } from './store-reads.js'
import { StoreDeletes } from './store-deletes.js'
import type { Caller, FieldValidation, Ownership, ResourceStore, UpdateOptions, WriteOptions } from '../../storage/resource-store.js'

export type { Caller, Ownership } from '../../storage/resource-store.js'
export { now } from './admitted-metadata.js'

/** Unconditional updates retry conflicts for as long as a request may take, as GuaranteedUpdate does. */
const RETRY_CONFLICTS_MS = 60_000
const GENERATE_NAME_ATTEMPTS = 8

/** A create whose generated name another object holds: tried again under a new name. */
class GeneratedNameTaken extends Error {
  constructor (readonly takenName: string, override readonly cause: StorageError) { super(`generated name ${takenName} is taken`) }
}


/** The value with `metadata.resourceVersion` removed, for comparing writes that change nothing. */
function withoutVolatile (obj: AnyObject): AnyObject {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = obj.metadata ?? {}
  return { ...obj, metadata: meta }
}

export class GenericStore extends StoreDeletes implements ResourceStore {

  // ---- writes ------------------------------------------------------------------------------

  private context (namespace: string, caller: Caller, dryRun: boolean, name?: string): RequestContext {
    const ctx: RequestContext = { namespace, user: caller.user, dryRun, warnings: caller.warnings, features: this.registry.features, requestVersion: caller.requestVersion, pools: this.pools }
    if (name !== undefined) ctx.owner = this.key(namespace, name)
    return ctx
  }

  /** Unknown fields per fieldValidation, defaults, and type errors of a whole object. */
  private checkSchema (obj: AnyObject, fieldValidation: FieldValidation, caller: Caller, name: string): void {
    const dropUnknown = fieldValidation !== 'Strict'
    const result = this.resource.checkBody?.(obj, dropUnknown) ?? checkAgainstSchema(this.resource.schema, obj, dropUnknown)
    if (fieldValidation === 'Strict') {
      const duplicates = caller.strict?.duplicates ?? []
      if (duplicates.length > 0 || result.unknown.length > 0) {
        const { kind, apiVersion } = this.resource
        throw strictDecodingError(duplicates, result.unknown, caller.strict?.patch === true ? undefined : { kind, version: apiVersion.split('/').pop()! })
      }
    }
    if (fieldValidation === 'Warn') for (const f of result.unknown) caller.warnings.push(`unknown field "${f}"`)
    if (result.errors.length > 0) throw invalid({ group: this.resource.group, kind: this.resource.kind }, name, result.errors)
  }

  private checkTypeMeta (obj: AnyObject): void {
    checkTypeMeta(obj, this.resource)
  }

  /** A fresh object with kind and apiVersion first, as the reference server serialises. */
  private normalise (obj: AnyObject): AnyObject {
    const { kind: _k, apiVersion: _a, metadata, ...rest } = obj
    return { kind: this.resource.kind, apiVersion: this.resource.apiVersion, metadata: { ...decodedMetadata(this.resource, metadata) }, ...rest }
  }

  private validateOrThrow (obj: AnyObject, old: AnyObject | undefined, ctx: RequestContext, subresource = ''): void {
    const s = this.resource.strategy
    // Appended into the one fresh array validateMetadata returns: every write passes here, and
    // spreading each part into a new array was garbage even when all were empty.
    const errors = validateMetadata(this.resource, obj, old === undefined)
    append(errors, s.validate?.(obj, ctx))
    const sub = subresource === '' ? undefined : this.resource.subresources[subresource]
    if (old !== undefined && sub?.validateUpdate !== undefined) append(errors, sub.validateUpdate(obj, old, ctx))
    else if (old !== undefined) append(errors, s.validateUpdate?.(obj, old, ctx))
    else append(errors, s.validateCreate?.(obj, ctx))
    if (errors.length > 0) throw invalid({ group: this.resource.group, kind: this.resource.kind }, obj.metadata?.name ?? '', errors)
  }

  private checkSentManagedFields (obj: AnyObject, old: AnyObject | undefined): void {
    const errors = sentEntryProblems(obj, old)
    if (errors.length > 0) throw invalid({ group: this.resource.group, kind: this.resource.kind }, obj.metadata.name ?? '', errors)
  }

  /** The entries a write leaves, as the reference validates them after its field manager ran. */
  private checkManagedFields (obj: AnyObject): void {
    const errors = managedFieldsProblems(obj.metadata.managedFields)
    if (errors.length > 0) throw invalid({ group: this.resource.group, kind: this.resource.kind }, obj.metadata.name ?? '', errors)
  }

  private managerInfo (caller: Caller, subresource: string) {
    return { manager: caller.manager, apiVersion: this.resource.apiVersion, subresource, time: now() }
  }

  /** POST on a virtual kind: the body checked as on create, answered by the kind, never stored. */
  async createVirtual (namespace: string, body: AnyObject, opts: WriteOptions, caller: Caller, ctx: VirtualContext): Promise<AnyObject> {
    // Status is the server's answer; clients send it zero-valued (Go clients as nulls).
    const { kind: _k, apiVersion: _a, status: _s, ...fields } = body
    const obj: AnyObject = { kind: this.resource.kind, apiVersion: this.resource.apiVersion, ...fields }
    if (this.resource.namespaced && namespace !== '' && (obj.metadata?.namespace ?? '') === '') obj.metadata = { ...(obj.metadata ?? {}), namespace }
    this.checkSchema(obj, opts.fieldValidation, caller, obj.metadata?.name ?? '')
    return await this.resource.virtual!.create(obj, ctx)
  }

  /**
   * POST on `<item>/<sub>`: admission sees the request object (CREATE on the subresource, as for
   * a TokenRequest upstream), then the subresource answers about the stored parent; nothing is
   * written here.
   */
  async createOnSubresource (namespace: string, name: string, sub: string, body: AnyObject, opts: WriteOptions, caller: Caller): Promise<AnyObject> {
    const attrs = admissionAttributes(this.resource, this.registry, { operation: 'CREATE', namespace, name, subresource: sub, caller, dryRun: opts.dryRun, object: body })
    await this.admission.mutate(attrs)
    await this.admission.validate(attrs)
    const parent = JSON.parse((await this.get(namespace, name)).json) as AnyObject
    return await this.resource.subresources[sub]!.create!(this.context(namespace, caller, opts.dryRun), parent, attrs.object ?? body)
  }

  /**
   * POST on `<item>/<sub>` that changes the parent (pods/binding): admission sees the request
   * object (CREATE on the subresource), then the subresource's changeParent is applied to the
   * stored parent and written by compare-and-swap, read again and retried on a conflict.
   */
  async changeThroughSubresource (namespace: string, name: string, sub: string, body: AnyObject, opts: WriteOptions, caller: Caller): Promise<void> {
    const request = await this.admitCreate(namespace, name, sub, body, opts, caller)
    await this.changeParent(namespace, name, sub, request, opts, caller)
  }

  /** Admission of a create of `body` on this kind (or on its subresource `sub`): the object as admission left it. */
  async admitCreate (namespace: string, name: string, sub: string, body: AnyObject, opts: WriteOptions, caller: Caller): Promise<AnyObject> {
    const attrs = admissionAttributes(this.resource, this.registry, { operation: 'CREATE', namespace, name, subresource: sub, caller, dryRun: opts.dryRun, object: body })
    await this.admission.mutate(attrs)
    await this.admission.validate(attrs)
    return attrs.object ?? body
  }

  /**
   * The subresource's changeParent applied to the stored object `name` and written by
   * compare-and-swap (read again and retried on a conflict); the request already admitted.
   */
  async changeParent (namespace: string, name: string, sub: string, request: AnyObject, opts: WriteOptions, caller: Caller): Promise<void> {
    const change = this.resource.subresources[sub]!.changeParent!
    const ctx = this.context(namespace, caller, opts.dryRun, name)
    const key = this.key(namespace, name)
    const deadline = Date.now() + RETRY_CONFLICTS_MS
    let atLeast: number | undefined
    for (let recent = true; ; recent = false) {
      const current = recent ? await this.readRecent(key, name) : await this.readCurrent(key, name, atLeast)
      if (current === undefined) throw notFound(this.gr, name)
      const obj = change(request, JSON.parse(current.json) as AnyObject, ctx)
      if (opts.dryRun) return
      try {
        await this.write({ type: 'update', key: current.key, value: obj as any, expectRevision: current.revision })
        return
      } catch (err) {
        if (err instanceof StorageError && err.code === 'Conflict' && Date.now() < deadline) {
          atLeast = err.revision
          continue
        }
        throw this.translateError(err, name)
      }
    }
  }

  /**
   * A stream subresource: admission sees the options (operation CONNECT, before the parent is
   * read, as the reference handler orders it) unless `admit` is false (pods/log is a read), then
   * the kind locates the parent's stream; undefined when there is nothing to stream.
   */
  async connect (namespace: string, name: string, sub: string, options: AnyObject, caller: Caller, admit: boolean, nodeAddressTypes: readonly string[] | undefined): Promise<StreamLocation | undefined> {
    const attrs = admissionAttributes(this.resource, this.registry, { operation: 'CONNECT', namespace, name, subresource: sub, caller, dryRun: false, object: options })
    if (admit) {
      await this.admission.mutate(attrs)
      await this.admission.validate(attrs)
    }
    const def = this.resource.subresources[sub]!.connect!
    const parent = JSON.parse((await this.get(namespace, def.parentName?.(name) ?? name)).json) as AnyObject
    return await def.locate(parent, attrs.object ?? options, { lookup: attrs.lookup, name, ...(nodeAddressTypes === undefined ? {} : { nodeAddressTypes }) })
  }

  async create (namespace: string, body: AnyObject, opts: WriteOptions & Ownership, caller: Caller): Promise<{ json: string, object: AnyObject }> {
    this.checkTypeMeta(body)
    const obj = this.normalise(body)
    placeInNamespace(this.resource, obj.metadata, namespace)
    clearServerSetMetadata(obj.metadata)
    this.checkSchema(obj, opts.fieldValidation, caller, obj.metadata.name ?? '')
    // Mutating admission sees the object as the client sent it: no uid or timestamps yet, and no
    // name when one is to be generated; validating admission sees the server's values.
    const attrs = admissionAttributes(this.resource, this.registry, { operation: 'CREATE', namespace, name: obj.metadata.name ?? '', subresource: '', caller, dryRun: opts.dryRun, object: obj })
    dedupOwnerReferences(obj, caller.warnings, false)
    await this.admission.mutate(attrs)
    dedupOwnerReferences(obj, caller.warnings, true)
    // A generated name that is taken is generated anew and the whole create runs again on a
    // fresh copy of the admitted object (the reference's RetryGenerateName): what the strategy
    // derives from the name (a Job's labels) follows it.
    const named = typeof obj.metadata?.name === 'string' && obj.metadata.name !== ''
    const admitted = named ? undefined : structuredClone(obj)
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.createAdmitted(attempt === 1 ? obj : structuredClone(admitted!), namespace, attrs, opts, caller)
      } catch (err) {
        if (!(err instanceof GeneratedNameTaken)) throw err
        if (attempt >= GENERATE_NAME_ATTEMPTS) throw this.translateError(err.cause, err.takenName)
      }
    }
  }

  /** The create after mutating admission: metadata settled, the strategy, validation, the write. */
  private async createAdmitted (obj: AnyObject, namespace: string, attrs: ReturnType<typeof admissionAttributes>, opts: WriteOptions & Ownership, caller: Caller): Promise<{ json: string, object: AnyObject }> {
    const generated = settleCreatedMetadata(this.resource, obj, namespace, now())
    const meta = obj.metadata
    attrs.object = obj
    attrs.name = meta.name ?? ''
    const ctx = this.context(namespace, caller, opts.dryRun, meta.name ?? '')
    if (this.resource.subresources.status !== undefined && this.resource.subresources.status.keepOnCreate !== true) delete obj.status
    this.resource.strategy.prepareForCreate?.(obj, ctx)
    const finish = await this.resource.strategy.beginCreate?.(obj, ctx)
    let written = false
    try {
      this.validateOrThrow(obj, undefined, ctx)
      append(ctx.warnings, this.resource.strategy.warningsOnCreate?.(obj, ctx))
      await this.admission.validate(attrs)
      this.resource.strategy.canonicalize?.(obj)
      if (opts.managedFieldsSet !== true) {
        this.checkSentManagedFields(obj, undefined)
        recordManagedFields(obj, undefined, this.managerInfo(caller, ''), this.resource.schema, this.resource.subresources.status !== undefined)
      }
      this.checkManagedFields(obj)
      if (opts.dryRun) {
        // As the reference's dry-run storage: the create that would fail on an existing key fails.
        if (!generated && await this.readRecent(this.key(namespace, obj.metadata.name), obj.metadata.name) !== undefined) throw alreadyExists(this.gr, obj.metadata.name)
        return { json: JSON.stringify(obj), object: obj }
      }
      try {
        const stored = await this.write({ type: 'create', key: this.key(namespace, obj.metadata.name), value: obj as any })
        written = true
        return { json: stored.json, object: obj }
      } catch (err) {
        if (generated && err instanceof StorageError && err.code === 'KeyExists') throw new GeneratedNameTaken(obj.metadata.name, err)
        throw this.translateError(err, obj.metadata.name)
      }
    } finally {
      await finish?.(written)
    }
  }

  /**
   * Read-modify-write with compare-and-swap. `change` builds the new object from the stored one
   * and may throw; when the new object carries no resourceVersion, conflicts are retried.
   */
  async update (namespace: string, name: string, change: (old: AnyObject) => AnyObject, opts: UpdateOptions, caller: Caller): Promise<{ json: string, created: boolean }> {
    const key = this.key(namespace, name)
    const deadline = Date.now() + RETRY_CONFLICTS_MS
    // The first read is from the cache; after a conflict, or a client that has seen more than
    // the cache holds, a consistent one (reaching at least the revision a conflict reported).
    let recent = true
    let atLeast: number | undefined
    for (;;) {
      const current = recent ? await this.readRecent(key, name) : await this.readCurrent(key, name, atLeast)
      if (current === undefined) {
        // An apply creates whatever the kind allows PUT to do.
        if (opts.subresource === '' && (opts.applyCreate !== undefined || (opts.createBody !== undefined && this.resource.strategy.allowCreateOnUpdate === true))) {
          const created = await this.create(namespace, opts.applyCreate?.() ?? opts.createBody!, opts, caller)
          return { json: created.json, created: true }
        }
        throw notFound(this.gr, name)
      }
      const old = JSON.parse(current.json) as AnyObject
      const incoming = change(structuredClone(old))
      this.checkTypeMeta(incoming)
      const obj = this.normalise(incoming)
      checkUpdateName(obj, name)
      const requestedRv = obj.metadata.resourceVersion
      const conditional = typeof requestedRv === 'string' && requestedRv !== ''
      if (conditional && requestedRv !== old.metadata.resourceVersion) {
        if (recent && newerThan(requestedRv, current.revision)) {
          recent = false
          continue
        }
        throw conflict(this.gr, name, OPTIMISTIC_LOCK_MESSAGE)
      }
      try {
        const result = await this.updateOnce(namespace, name, current, old, obj, opts, caller)
        return { json: result, created: false }
      } catch (err) {
        if (!conditional && err instanceof StorageError && err.code === 'Conflict' && Date.now() < deadline) {
          recent = false
          atLeast = err.revision
          continue
        }
        throw this.translateError(err, name)
      }
    }
  }

  private async updateOnce (namespace: string, name: string, current: StoredObject, old: AnyObject, incoming: AnyObject,
    opts: WriteOptions & Ownership & { subresource: string }, caller: Caller): Promise<string> {
    const meta = incoming.metadata
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`)
    }
    if (this.resource.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request')
    }
    if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== old.metadata.uid) {
      throw conflict(this.gr, name, `Precondition failed: UID in precondition: ${String(meta.uid)}, UID in object meta: ${String(old.metadata.uid)}`)
    }
    meta.name = name
    if (this.resource.namespaced) meta.namespace = namespace
    for (const f of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
      if (old.metadata[f] === undefined) delete meta[f]
      else meta[f] = old.metadata[f]
    }
    meta.resourceVersion = old.metadata.resourceVersion
    const sub = opts.subresource
    this.checkSchema(incoming, opts.fieldValidation, caller, name)
    const ctx = this.context(namespace, caller, opts.dryRun, name)
    // Through a subresource served as another kind (a Scale), admission sees and changes that kind.
    const view = sub === '' ? undefined : this.resource.subresources[sub]!.view
    const attrs = admissionAttributes(this.resource, this.registry, { operation: 'UPDATE', namespace, name, subresource: sub, caller, dryRun: opts.dryRun, object: view === undefined ? incoming : view.toView(incoming), oldObject: view === undefined ? old : view.toView(old) })
    dedupOwnerReferences(incoming, caller.warnings, false)
    await this.admission.mutate(attrs)
    if (view !== undefined) incoming = view.fromView(attrs.object!, incoming)
    const obj = keepUnowned(this.resource, incoming, old, sub, ctx)
    attrs.object = view === undefined ? obj : view.toView(obj)
    dedupOwnerReferences(obj, caller.warnings, true)
    settleUpdatedMetadata(this.resource, obj, old, namespace, this.gr)
    if (sub === '') this.resource.strategy.prepareForUpdate?.(obj, old, ctx)
    const finish = sub === '' ? await this.resource.strategy.beginUpdate?.(obj, old, ctx) : undefined
    let written = false
    try {
      const result = await this.finishUpdate(current, old, obj, opts, caller, ctx, attrs)
      written = result.written
      return result.json
    } finally {
      await finish?.(written)
    }
  }

  /** The rest of an update after the strategy's begin hook: the answer, and whether anything was written (not for no change or dry run). */
  private async finishUpdate (current: StoredObject, old: AnyObject, obj: AnyObject, opts: WriteOptions & Ownership & { subresource: string }, caller: Caller,
    ctx: RequestContext, attrs: ReturnType<typeof admissionAttributes>): Promise<{ json: string, written: boolean }> {
    const meta = obj.metadata
    const sub = opts.subresource
    if (this.resource.generation && old.metadata.generation !== undefined) {
      const { metadata: _m1, status: _s1, ...a } = obj
      const { metadata: _m2, status: _s2, ...b } = old
      // A strategy may bump it for more than the spec (annotations a controller copies onward
      // to what it makes): its bump stands.
      const bumpedByStrategy = typeof meta.generation === 'number' && meta.generation > old.metadata.generation
      meta.generation = !bumpedByStrategy && isDeepStrictEqual(a, b) ? old.metadata.generation : old.metadata.generation + 1
    }
    this.validateOrThrow(obj, old, ctx, sub)
    if (sub === '') ctx.warnings.push(...(this.resource.strategy.warningsOnUpdate?.(obj, old, ctx) ?? []))
    await this.admission.validate(attrs)
    this.resource.strategy.canonicalize?.(obj)
    if (opts.managedFieldsSet !== true) {
      this.checkSentManagedFields(obj, old)
      recordManagedFields(obj, old, this.managerInfo(caller, sub), this.resource.schema, this.resource.subresources.status !== undefined, sub === '' ? [] : this.resource.subresources[sub]!.resetMetadata)
    }
    this.checkManagedFields(obj)
    if (isDeepStrictEqual(withoutVolatile(obj), withoutVolatile(old)) &&
        isDeepStrictEqual(obj.metadata.managedFields?.map((e: AnyObject) => ({ ...e, time: undefined })), old.metadata.managedFields?.map((e: AnyObject) => ({ ...e, time: undefined })))) {
      return { json: current.json, written: false }
    }
    const finishing = meta.deletionTimestamp !== undefined && this.pendingFinalizers(obj).length === 0
    if (opts.dryRun) return { json: JSON.stringify(obj), written: false }
    const stored = await this.write(finishing
      ? { type: 'delete', key: current.key, value: obj as any, expectRevision: current.revision }
      : { type: 'update', key: current.key, value: obj as any, expectRevision: current.revision })
    if (finishing) await this.releaseHeld(obj)
    return { json: stored.json, written: true }
  }
}

/** Appends `more` (when there is any) to `into` without a spread's temporary arrays. */
function append<T> (into: T[], more: readonly T[] | undefined): void {
  if (more !== undefined) for (const x of more) into.push(x)
}
