// The generic store: every verb of every kind, in the reference server's order (admission,
// strategy, validation, storage), driven by the kind's definition alone.
import { randomUUID } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import {
  ApiError, alreadyExists, badRequest, conflict, expired, invalid, notFound, OPTIMISTIC_LOCK_MESSAGE,
  serviceUnavailable, tooLargeResourceVersion, type FieldError
} from '../errors.js'
import { keyPrefix, storageKey, type AnyObject, type RequestContext, type Resource, type VirtualContext } from '../../resources/define.js'
import { validateAnnotations, validateLabels, dnsLabelProblems, dnsSubdomainProblems, pathSegmentProblems, qualifiedNameProblems, invalidEach } from '../../resources/validation.js'
import { StorageError, type CachedObject, type ObjectAttrs, type Storage, type StoredObject, type WatchCache, type WriteOp } from '../../storage/interface.js'
import type { AdmissionAttributes, AdmissionChain, Operation } from '../../admission/chain.js'
import type { UserInfo } from '../../auth/authn.js'
import { checkAgainstSchema } from './schema-check.js'
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, type FieldSelector, type LabelSelector } from './selectors.js'
import { recordManagedFields } from './managed-fields.js'
import { decodeContinue, encodeContinue } from './continue.js'
import type { DeleteOptions, FieldValidation, ListOptions, WriteOptions } from './options.js'

/** Who writes, and where the answer's warnings go. */
export interface Caller {
  user: UserInfo
  manager: string
  warnings: string[]
}

export interface ListResult {
  items: Array<{ key: string, json: string }>
  revision: number
  continue?: string
  remaining?: number
}

/** How the store reaches other kinds (admission lookups). */
export interface Registry {
  find (plural: string, group: string): GenericStore | undefined
}

const RV_WAIT_MS = 3000
/** Metadata the server sets on create, whatever the client sent. */
const SERVER_SET_METADATA = ['uid', 'resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'generation']
/** A consistent read waits this long for the watch cache before it reads the database instead. */
const CACHE_READ_WAIT_MS = 1000
/** Unconditional updates retry conflicts for as long as a request may take, as GuaranteedUpdate does. */
const RETRY_CONFLICTS_MS = 60_000
const MAX_PRECONDITION_ATTEMPTS = 8
const GENERATE_NAME_ATTEMPTS = 8
const NAME_SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789'

/** The current time to the second, as metadata timestamps spell it; formatted once a second. */
export const now = (): string => {
  const second = Math.floor(Date.now() / 1000)
  if (second !== nowCache.second) nowCache = { second, text: new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') }
  return nowCache.text
}
let nowCache = { second: -1, text: '' }

const suffix = (): string => Array.from({ length: 5 }, () => NAME_SUFFIX_CHARS[Math.floor(Math.random() * NAME_SUFFIX_CHARS.length)]).join('')

/** The value with `metadata.resourceVersion` removed, for comparing writes that change nothing. */
function withoutVolatile (obj: AnyObject): AnyObject {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = obj.metadata ?? {}
  return { ...obj, metadata: meta }
}

export class GenericStore {
  readonly gr: { group: string, resource: string }
  readonly prefix: string
  private readonly supportedFields: ReadonlySet<string>
  /** The newest revision this process has written to this kind (readRecent waits for it). */
  private lastWritten = 0

  constructor (
    readonly resource: Resource,
    private readonly storage: Storage,
    readonly cache: WatchCache,
    private readonly admission: AdmissionChain,
    private readonly registry: Registry
  ) {
    this.gr = { group: resource.group, resource: resource.plural }
    this.prefix = keyPrefix(resource)
    this.supportedFields = new Set(['metadata.name', 'metadata.namespace', ...Object.keys(resource.fieldSelectors ?? {})])
  }

  key (namespace: string, name: string): string { return storageKey(this.resource, this.resource.namespaced ? namespace : '', name) }

  /** The prefix of a list: one namespace, or all of them. */
  listPrefix (namespace: string): string { return this.resource.namespaced && namespace !== '' ? `${this.prefix}${namespace}/` : this.prefix }

  /** Selector attributes of an object, as the watch cache keeps them. */
  attrs = (obj: AnyObject): ObjectAttrs => {
    const fields: Record<string, string> = {
      'metadata.name': obj.metadata?.name ?? '',
      'metadata.namespace': obj.metadata?.namespace ?? ''
    }
    for (const [field, get] of Object.entries(this.resource.fieldSelectors ?? {})) fields[field] = get(obj) ?? ''
    return { labels: obj.metadata?.labels ?? {}, fields }
  }

  selectors (o: { labelSelector?: string, fieldSelector?: string }): { labels: LabelSelector, fields: FieldSelector } {
    return { labels: parseLabelSelector(o.labelSelector), fields: parseFieldSelector(o.fieldSelector, this.supportedFields) }
  }

  // ---- reads -------------------------------------------------------------------------------

  async get (namespace: string, name: string, resourceVersion?: string): Promise<StoredObject> {
    const key = this.key(namespace, name)
    let found: StoredObject | CachedObject | undefined
    if (resourceVersion === undefined || resourceVersion === '') {
      found = await this.readCurrent(key, name)
    } else {
      const rv = Number(resourceVersion)
      if (!Number.isSafeInteger(rv) || rv < 0) throw badRequest(`invalid resource version "${resourceVersion}"`)
      if (rv > 0) await this.waitFor(rv)
      found = this.cache.get(key)
    }
    if (found === undefined) throw notFound(this.gr, name)
    return found
  }

  /**
   * The newest state of a key, as a database read would give it: from the watch cache once it
   * has applied the database's current revision (one revision query, shared by concurrent
   * callers), or at least `atLeast` when the caller knows that revision already. From the
   * database itself when the cache lags too long.
   */
  async readCurrent (key: string, name: string, atLeast?: number): Promise<StoredObject | CachedObject | undefined> {
    try {
      const rev = atLeast ?? await this.storage.currentRevision()
      if (this.cache.revision < rev) await this.cache.waitForRevision(rev, CACHE_READ_WAIT_MS)
      return this.cache.get(key)
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'TooLarge')) throw this.translateError(err, name)
    }
    return await this.translate(() => this.storage.get(key), name)
  }

  /**
   * A key as fresh as every write this process has acknowledged to this kind, from the watch
   * cache, without a revision query; a key the cache lacks is read consistently. The read an
   * update starts from and admission's lookups (the upstream cacher and listers): a stale
   * answer there costs a precondition conflict and a retry, never a lost write.
   */
  async readRecent (key: string, name: string): Promise<StoredObject | CachedObject | undefined> {
    if (this.cache.revision < this.lastWritten) {
      try {
        await this.cache.waitForRevision(this.lastWritten, CACHE_READ_WAIT_MS)
      } catch (err) {
        if (!(err instanceof StorageError && err.code === 'TooLarge')) throw this.translateError(err, name)
        return await this.readCurrent(key, name)
      }
    }
    return this.cache.get(key) ?? await this.readCurrent(key, name)
  }

  /** Every write goes through here, so that readRecent knows what this process has written. */
  private async write (op: WriteOp): Promise<StoredObject> {
    const stored = await this.storage.write(op)
    if (stored.revision > this.lastWritten) this.lastWritten = stored.revision
    return stored
  }

  private async waitFor (rv: number): Promise<void> {
    if (this.cache.revision >= rv) return
    try {
      await this.cache.waitForRevision(rv, RV_WAIT_MS)
    } catch (err) {
      if (err instanceof StorageError && err.code === 'TooLarge') throw tooLargeResourceVersion(rv, this.cache.revision)
      throw err
    }
  }

  /** Revisions below this one can no longer be watched from. */
  async compactedRevision (): Promise<number> {
    return await this.translate(() => this.storage.compactedRevision(), '')
  }

  /** Waits until the cache is at least at `rv`, or (undefined) at the database's newest revision. */
  async freshen (rv: number | undefined): Promise<void> {
    if (rv === undefined) await this.consistent()
    else if (rv > 0) await this.waitFor(rv)
  }

  /** A consistent read: the cache once it has caught up with the database's newest revision. */
  private async consistent (): Promise<void> {
    const current = await this.translate(() => this.storage.currentRevision(), '')
    await this.waitFor(current)
  }

  async list (namespace: string, o: ListOptions): Promise<ListResult> {
    const sel = this.selectors(o)
    const prefix = this.listPrefix(namespace)
    const filtered = sel.labels.length > 0 || sel.fields.length > 0
    if (o.continue !== undefined) {
      if (o.resourceVersion !== undefined && o.resourceVersion !== '0') {
        throw badRequest('specifying resource version is not allowed when using continue')
      }
      const token = decodeContinue(o.continue)
      return await this.listFromStorage(prefix, token.rv, o.limit, `${prefix}${token.start}`, sel, filtered, true)
    }
    const rv = o.resourceVersion === undefined ? undefined : Number(o.resourceVersion)
    const exact = rv !== undefined && rv > 0 && (o.resourceVersionMatch === 'Exact' || (o.resourceVersionMatch === undefined && o.limit !== undefined))
    if (exact) return await this.listFromStorage(prefix, rv, o.limit, undefined, sel, filtered, false)
    await this.freshen(rv)
    return this.listFromCache(prefix, o.limit, sel, filtered)
  }

  private listFromCache (prefix: string, limit: number | undefined, sel: { labels: LabelSelector, fields: FieldSelector }, filtered: boolean): ListResult {
    // The cache's objects and revision are read in one synchronous step: one snapshot.
    const revision = this.cache.revision
    const all = this.cache.list(prefix)
    const items: CachedObject[] = []
    let i = 0
    for (; i < all.length; i++) {
      const o = all[i]!
      if (filtered && !(matchesLabels(sel.labels, o.attrs.labels) && matchesFields(sel.fields, o.attrs.fields))) continue
      if (limit !== undefined && items.length === limit) break
      items.push(o)
    }
    const result: ListResult = { items, revision }
    if (limit !== undefined && i < all.length) {
      const hasMore = !filtered || all.slice(i).some(o => matchesLabels(sel.labels, o.attrs.labels) && matchesFields(sel.fields, o.attrs.fields))
      if (hasMore) {
        result.continue = encodeContinue(revision, items[items.length - 1]!.key.slice(prefix.length))
        if (!filtered) result.remaining = all.length - i
      }
    }
    return result
  }

  private async listFromStorage (prefix: string, revision: number, limit: number | undefined, after: string | undefined,
    sel: { labels: LabelSelector, fields: FieldSelector }, filtered: boolean, fromContinue: boolean): Promise<ListResult> {
    const items: StoredObject[] = []
    let cursor = after
    let remaining: number | undefined
    let more = false
    for (;;) {
      const want = limit === undefined ? undefined : (filtered ? Math.max(limit - items.length, 500) : limit - items.length)
      let page
      try {
        page = await this.storage.list({ prefix, revision, limit: want, continueAfterKey: cursor })
      } catch (err) {
        if (err instanceof StorageError && err.code === 'Compacted') {
          throw fromContinue
            ? expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.')
            : expired(`too old resource version: ${revision} (${err.revision ?? 0})`)
        }
        if (err instanceof StorageError && err.code === 'TooLarge') throw tooLargeResourceVersion(revision, await this.storage.currentRevision())
        throw this.translateError(err, '')
      }
      let stoppedAt = -1
      for (let i = 0; i < page.items.length; i++) {
        const item = page.items[i]!
        if (filtered) {
          const a = this.attrs(JSON.parse(item.json))
          if (!(matchesLabels(sel.labels, a.labels) && matchesFields(sel.fields, a.fields))) continue
        }
        if (limit !== undefined && items.length === limit) { stoppedAt = i; break }
        items.push(item)
      }
      if (stoppedAt >= 0) { more = true; break }
      if (page.continueAfterKey === undefined) break
      if (limit !== undefined && items.length === limit) {
        more = true
        if (!filtered) remaining = page.remaining
        break
      }
      cursor = page.continueAfterKey
    }
    const result: ListResult = { items, revision }
    if (more && items.length > 0) {
      result.continue = encodeContinue(revision, items[items.length - 1]!.key.slice(prefix.length))
      if (!filtered && remaining !== undefined && remaining > 0) result.remaining = remaining
    }
    return result
  }

  // ---- writes ------------------------------------------------------------------------------

  private context (namespace: string, caller: Caller, dryRun: boolean): RequestContext {
    return { namespace, user: caller.user, dryRun, warnings: caller.warnings }
  }

  private admissionAttributes (operation: Operation, namespace: string, name: string, subresource: string,
    caller: Caller, dryRun: boolean, object?: AnyObject, oldObject?: AnyObject): AdmissionAttributes {
    return {
      operation, resource: this.resource, subresource, namespace: this.resource.namespaced ? namespace : '', name,
      object, oldObject, user: caller.user, dryRun, warnings: caller.warnings,
      lookup: async (plural, group, ns, n) => {
        const store = this.registry.find(plural, group)
        if (store === undefined) return undefined
        // As fresh as this process's own writes: a namespace it marked terminating a moment
        // ago refuses new objects, and no create waits on a revision query.
        const found = await store.readRecent(store.key(ns, n), n)
        return found === undefined ? undefined : parsedLookup(found)
      },
      list: (plural, group, ns) => {
        const store = this.registry.find(plural, group)
        if (store === undefined) return []
        return store.cache.list(store.listPrefix(ns ?? '')).map(o => JSON.parse(o.json))
      },
      listConsistent: async (plural, group, ns) => {
        const store = this.registry.find(plural, group)
        if (store === undefined) return []
        await store.freshen(undefined)
        return store.cache.list(store.listPrefix(ns ?? '')).map(o => JSON.parse(o.json))
      }
    }
  }

  /** Unknown fields per fieldValidation, defaults, and type errors of a whole object. */
  private checkSchema (obj: AnyObject, fieldValidation: FieldValidation, caller: Caller, name: string): void {
    const result = checkAgainstSchema(this.resource.schema, obj, fieldValidation !== 'Strict')
    if (fieldValidation === 'Strict' && result.unknown.length > 0) {
      throw invalid({ group: this.resource.group, kind: this.resource.kind }, name,
        result.unknown.map(field => ({ type: 'Unknown' as const, field })))
    }
    if (fieldValidation === 'Warn') for (const f of result.unknown) caller.warnings.push(`unknown field "${f}"`)
    if (result.errors.length > 0) throw invalid({ group: this.resource.group, kind: this.resource.kind }, name, result.errors)
  }

  private checkTypeMeta (obj: AnyObject): void {
    if (obj.apiVersion !== undefined && obj.apiVersion !== this.resource.apiVersion) {
      throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${this.resource.apiVersion})`)
    }
    if (obj.kind !== undefined && obj.kind !== this.resource.kind) {
      throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${this.resource.kind})`)
    }
  }

  /** A fresh object with kind and apiVersion first, as the reference server serialises. */
  private normalise (obj: AnyObject): AnyObject {
    const { kind: _k, apiVersion: _a, metadata, ...rest } = obj
    return { kind: this.resource.kind, apiVersion: this.resource.apiVersion, metadata: { ...(metadata ?? {}) }, ...rest }
  }

  validateMetadata (obj: AnyObject, isCreate: boolean): FieldError[] {
    const meta = obj.metadata ?? {}
    const errors: FieldError[] = []
    if (typeof meta.name !== 'string' || meta.name === '') {
      errors.push({ type: 'Required', field: 'metadata.name', detail: isCreate ? 'name or generateName is required' : undefined })
    } else {
      const rule = this.resource.nameRule
      if (typeof rule === 'function') {
        for (const p of rule(meta.name)) errors.push({ type: p.type, field: 'metadata.name', value: meta.name, detail: p.detail })
      } else {
        const problems = rule === 'DNSLabel' ? dnsLabelProblems(meta.name)
          : rule === 'PathSegment' ? pathSegmentProblems(meta.name) : dnsSubdomainProblems(meta.name)
        errors.push(...invalidEach('metadata.name', meta.name, problems))
      }
    }
    if (this.resource.namespaced && (typeof meta.namespace !== 'string' || meta.namespace === '')) errors.push({ type: 'Required', field: 'metadata.namespace' })
    errors.push(...validateLabels(meta.labels ?? undefined, 'metadata.labels'))
    errors.push(...validateAnnotations(meta.annotations ?? undefined, 'metadata.annotations'))
    ;(meta.finalizers ?? []).forEach((f: string, i: number) => {
      errors.push(...invalidEach(`metadata.finalizers[${i}]`, f, qualifiedNameProblems(f)))
    })
    ;(meta.ownerReferences ?? []).forEach((o: AnyObject, i: number) => {
      for (const f of ['apiVersion', 'kind', 'name', 'uid']) {
        if (typeof o[f] !== 'string' || o[f] === '') errors.push({ type: 'Required', field: `metadata.ownerReferences[${i}].${f}` })
      }
    })
    return errors
  }

  private validateOrThrow (obj: AnyObject, old: AnyObject | undefined, ctx: RequestContext): void {
    const s = this.resource.strategy
    const errors = [...this.validateMetadata(obj, old === undefined), ...(s.validate?.(obj, ctx) ?? [])]
    if (old !== undefined) errors.push(...(s.validateUpdate?.(obj, old, ctx) ?? []))
    if (errors.length > 0) throw invalid({ group: this.resource.group, kind: this.resource.kind }, obj.metadata?.name ?? '', errors)
  }

  private translateError (err: unknown, name: string): Error {
    if (err instanceof ApiError) return err
    if (err instanceof StorageError) {
      switch (err.code) {
        case 'KeyExists': return alreadyExists(this.gr, name)
        case 'NotFound': return notFound(this.gr, name)
        case 'Conflict': return conflict(this.gr, name, OPTIMISTIC_LOCK_MESSAGE)
        case 'Unavailable': return serviceUnavailable('the storage is unavailable; please try again')
        case 'Compacted': return expired(err.message)
        case 'TooLarge': return tooLargeResourceVersion(err.revision ?? 0, this.cache.revision)
      }
    }
    return err as Error
  }

  private async translate<T> (fn: () => Promise<T>, name: string): Promise<T> {
    try { return await fn() } catch (err) { throw this.translateError(err, name) }
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

  /** POST on `<item>/<sub>`: the subresource answers about the stored parent; nothing is written here. */
  async createOnSubresource (namespace: string, name: string, sub: string, body: AnyObject, opts: WriteOptions, caller: Caller): Promise<AnyObject> {
    const parent = JSON.parse((await this.get(namespace, name)).json) as AnyObject
    return await this.resource.subresources[sub]!.create!(this.context(namespace, caller, opts.dryRun), parent, body)
  }

  async create (namespace: string, body: AnyObject, opts: WriteOptions, caller: Caller): Promise<{ json: string, object: AnyObject }> {
    this.checkTypeMeta(body)
    const obj = this.normalise(body)
    const meta = obj.metadata
    if (this.resource.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request')
      }
      meta.namespace = namespace
    } else delete meta.namespace
    for (const f of SERVER_SET_METADATA) delete meta[f]
    meta.uid = randomUUID()
    meta.creationTimestamp = now()
    if (this.resource.generation) meta.generation = 1
    const generated = (meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== ''
    if (generated) meta.name = `${meta.generateName as string}${suffix()}`
    this.checkSchema(obj, opts.fieldValidation, caller, meta.name ?? '')
    const ctx = this.context(namespace, caller, opts.dryRun)
    const attrs = this.admissionAttributes('CREATE', namespace, meta.name ?? '', '', caller, opts.dryRun, obj)
    await this.admission.mutate(attrs)
    if (this.resource.subresources.status !== undefined && this.resource.subresources.status.keepOnCreate !== true) delete obj.status
    this.resource.strategy.prepareForCreate?.(obj, ctx)
    this.validateOrThrow(obj, undefined, ctx)
    await this.admission.validate(attrs)
    this.resource.strategy.canonicalize?.(obj)
    recordManagedFields(obj, undefined, this.managerInfo(caller, ''))
    if (opts.dryRun) return { json: JSON.stringify(obj), object: obj }
    for (let attempt = 1; ; attempt++) {
      try {
        const stored = await this.write({ type: 'create', key: this.key(namespace, obj.metadata.name), value: obj as any })
        return { json: stored.json, object: obj }
      } catch (err) {
        if (generated && err instanceof StorageError && err.code === 'KeyExists' && attempt < GENERATE_NAME_ATTEMPTS) {
          obj.metadata.name = `${meta.generateName as string}${suffix()}`
          continue
        }
        throw this.translateError(err, obj.metadata.name)
      }
    }
  }

  /**
   * Read-modify-write with compare-and-swap. `change` builds the new object from the stored one
   * and may throw; when the new object carries no resourceVersion, conflicts are retried.
   */
  async update (namespace: string, name: string, change: (old: AnyObject) => AnyObject, opts: WriteOptions & { subresource: string, createBody?: AnyObject },
    caller: Caller): Promise<{ json: string, created: boolean }> {
    const key = this.key(namespace, name)
    const deadline = Date.now() + RETRY_CONFLICTS_MS
    // The first read is from the cache; after a conflict, or a client that has seen more than
    // the cache holds, a consistent one (reaching at least the revision a conflict reported).
    let recent = true
    let atLeast: number | undefined
    for (;;) {
      const current = recent ? await this.readRecent(key, name) : await this.readCurrent(key, name, atLeast)
      if (current === undefined) {
        if (opts.createBody !== undefined && this.resource.strategy.allowCreateOnUpdate === true && opts.subresource === '') {
          const created = await this.create(namespace, opts.createBody, opts, caller)
          return { json: created.json, created: true }
        }
        throw notFound(this.gr, name)
      }
      const old = JSON.parse(current.json) as AnyObject
      const incoming = change(structuredClone(old))
      this.checkTypeMeta(incoming)
      const obj = this.normalise(incoming)
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

  private async updateOnce (namespace: string, name: string, current: StoredObject, old: AnyObject, obj: AnyObject,
    opts: WriteOptions & { subresource: string }, caller: Caller): Promise<string> {
    const meta = obj.metadata
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
    if (sub === '' && this.resource.subresources.status !== undefined) {
      if (old.status === undefined) delete obj.status
      else obj.status = old.status
    }
    this.checkSchema(obj, opts.fieldValidation, caller, name)
    const ctx = this.context(namespace, caller, opts.dryRun)
    const attrs = this.admissionAttributes('UPDATE', namespace, name, sub, caller, opts.dryRun, obj, old)
    await this.admission.mutate(attrs)
    if (sub === '') this.resource.strategy.prepareForUpdate?.(obj, old, ctx)
    if (this.resource.generation && old.metadata.generation !== undefined) {
      const { metadata: _m1, status: _s1, ...a } = obj
      const { metadata: _m2, status: _s2, ...b } = old
      meta.generation = isDeepStrictEqual(a, b) ? old.metadata.generation : old.metadata.generation + 1
    }
    this.validateOrThrow(obj, old, ctx)
    await this.admission.validate(attrs)
    this.resource.strategy.canonicalize?.(obj)
    recordManagedFields(obj, old, this.managerInfo(caller, sub))
    if (isDeepStrictEqual(withoutVolatile(obj), withoutVolatile(old)) &&
        isDeepStrictEqual(obj.metadata.managedFields?.map((e: AnyObject) => ({ ...e, time: undefined })), old.metadata.managedFields?.map((e: AnyObject) => ({ ...e, time: undefined })))) {
      return current.json
    }
    const finishing = meta.deletionTimestamp !== undefined && this.pendingFinalizers(obj).length === 0
    if (opts.dryRun) return JSON.stringify(obj)
    const stored = await this.write(finishing
      ? { type: 'delete', key: current.key, value: obj as any, expectRevision: current.revision }
      : { type: 'update', key: current.key, value: obj as any, expectRevision: current.revision })
    return stored.json
  }

  pendingFinalizers (obj: AnyObject): string[] {
    return [...(obj.metadata?.finalizers ?? []), ...(this.resource.strategy.pendingFinalizers?.(obj) ?? [])]
  }

  /**
   * Deletes one object: at once when nothing holds it, else marks it terminating. Returns the
   * object as last stored and whether it is gone.
   */
  async delete (namespace: string, name: string, opts: DeleteOptions, caller: Caller): Promise<{ json: string, object: AnyObject, deleted: boolean }> {
    const key = this.key(namespace, name)
    // As in update: from the cache first, consistently after that.
    let recent = true
    let atLeast: number | undefined
    for (let attempt = 1; ; attempt++) {
      const current = recent ? await this.readRecent(key, name) : await this.readCurrent(key, name, atLeast)
      if (current === undefined) throw notFound(this.gr, name)
      const old = JSON.parse(current.json) as AnyObject
      const pre = opts.preconditions
      if (recent && newerThan(pre?.resourceVersion, current.revision)) {
        recent = false
        continue
      }
      if (pre?.uid !== undefined && pre.uid !== null && pre.uid !== old.metadata.uid) {
        throw conflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(old.metadata.uid)}`)
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== null && pre.resourceVersion !== old.metadata.resourceVersion) {
        throw conflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(old.metadata.resourceVersion)}`)
      }
      const attrs = this.admissionAttributes('DELETE', namespace, name, '', caller, opts.dryRun, undefined, old)
      await this.admission.mutate(attrs)
      await this.admission.validate(attrs)
      const held = this.pendingFinalizers(old).length > 0
      if (held && old.metadata.deletionTimestamp !== undefined) return { json: current.json, object: old, deleted: false }
      try {
        if (held) {
          const marked = structuredClone(old)
          marked.metadata.deletionTimestamp = now()
          marked.metadata.deletionGracePeriodSeconds = 0
          this.resource.strategy.prepareForDelete?.(marked)
          if (opts.dryRun) return { json: JSON.stringify(marked), object: marked, deleted: false }
          const stored = await this.write({ type: 'update', key, value: marked as any, expectRevision: current.revision })
          return { json: stored.json, object: JSON.parse(stored.json), deleted: false }
        }
        if (opts.dryRun) return { json: current.json, object: old, deleted: true }
        const stored = await this.write({ type: 'delete', key, value: old as any, expectRevision: current.revision })
        return { json: stored.json, object: old, deleted: true }
      } catch (err) {
        if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound') && attempt < MAX_PRECONDITION_ATTEMPTS) {
          if (err.code === 'NotFound') throw notFound(this.gr, name)
          recent = false
          atLeast = err.revision
          continue
        }
        throw this.translateError(err, name)
      }
    }
  }

  /** Deletes every object a list selects, one by one (each with its own admission and finalizers). */
  async deleteCollection (namespace: string, list: ListOptions, opts: DeleteOptions, caller: Caller): Promise<number> {
    const page = await this.list(namespace, { ...list, limit: undefined, continue: undefined })
    let count = 0
    for (const item of page.items) {
      const obj = JSON.parse(item.json) as AnyObject
      try {
        await this.delete(obj.metadata.namespace ?? '', obj.metadata.name, { ...opts, preconditions: undefined }, caller)
        count++
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) continue
        throw err
      }
    }
    return count
  }
}

/**
 * Lookups parse each cached object once: every create in a namespace looks the namespace up.
 * Frozen, because every caller shares the one copy.
 */
const lookups = new WeakMap<StoredObject | CachedObject, AnyObject>()
function parsedLookup (found: StoredObject | CachedObject): AnyObject {
  let obj = lookups.get(found)
  if (obj === undefined) {
    obj = deepFreeze(JSON.parse(found.json) as AnyObject)
    lookups.set(found, obj)
  }
  return obj
}
function deepFreeze<T> (value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

/** Whether a client's resourceVersion names a revision after `revision`. */
function newerThan (resourceVersion: unknown, revision: number): boolean {
  if (typeof resourceVersion !== 'string' || !/^[0-9]{1,15}$/.test(resourceVersion)) return false
  return Number(resourceVersion) > revision
}
