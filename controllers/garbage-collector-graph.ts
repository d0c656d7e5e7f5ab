// The garbage collector's graph: which objects name which owners, by owner uid, kept from the
// watch caches' events. Only objects that carry ownerReferences have an entry (most objects
// have none, and an owner is found through its kind's cache), so an object without owners
// costs nothing here and one with owners costs its references.
import type { ResourceStore } from '../storage/resource-store.js'

export interface OwnerRef {
  uid: string
  /** The owner's API group ('' for the core group), from its apiVersion. */
  group: string
  kind: string
  name: string
  /** blockOwnerDeletion: a foreground deletion of the owner waits for this dependent. */
  block: boolean
}

/** An object with owners; its namespace and name are read from its key, so they cost nothing kept. */
export class Dependent {
  constructor (readonly store: ResourceStore, readonly key: string, readonly uid: string, public owners: OwnerRef[]) {}

  get name (): string { return this.key.slice(this.key.lastIndexOf('/') + 1) }

  get namespace (): string {
    if (!this.store.resource.namespaced) return ''
    const rest = this.key.slice(this.store.prefix.length)
    return rest.slice(0, rest.indexOf('/'))
  }
}

export const groupOf = (apiVersion: string): string => apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : ''

export function ownerRefsOf (refs: unknown): OwnerRef[] {
  if (!Array.isArray(refs)) return []
  const out: OwnerRef[] = []
  for (const r of refs) {
    if (r === null || typeof r !== 'object' || typeof r.uid !== 'string' || r.uid === '') continue
    out.push({ uid: r.uid, group: groupOf(String(r.apiVersion ?? '')), kind: String(r.kind ?? ''), name: String(r.name ?? ''), block: r.blockOwnerDeletion === true })
  }
  return out
}

const sameRefs = (a: OwnerRef[], b: OwnerRef[]): boolean =>
  a.length === b.length && a.every((r, i) => r.uid === b[i]!.uid && r.group === b[i]!.group && r.kind === b[i]!.kind && r.name === b[i]!.name && r.block === b[i]!.block)

export class OwnerGraph {
  /** Objects with owners, by storage key. */
  readonly dependents = new Map<string, Dependent>()
  /** The objects naming an owner uid, by storage key; the entry's strings are shared by every reference to it. */
  private readonly byOwner = new Map<string, { uid: string, name: string, keys: Set<string> }>()
  /** API groups and kinds, spelled once. */
  private readonly words = new Map<string, string>()

  /**
   * Records an object's owners. Returns the owner uids whose set of dependents changed (an
   * owner waiting for its dependents may now be free) and whether the object is new or its
   * references changed (it may now have an absent owner).
   */
  set (d: Dependent): { changed: boolean, owners: string[] } {
    const before = this.dependents.get(d.key)
    if (before !== undefined && before.uid === d.uid && sameRefs(before.owners, d.owners)) return { changed: false, owners: [] }
    const touched = new Set<string>()
    if (before !== undefined) for (const r of before.owners) { this.unlink(r.uid, d.key); touched.add(r.uid) }
    d.owners = d.owners.map(r => this.shared(r))
    if (d.owners.length === 0) {
      this.dependents.delete(d.key)
    } else {
      this.dependents.set(d.key, d)
      for (const r of d.owners) { this.link(r, d.key); touched.add(r.uid) }
    }
    return { changed: d.owners.length > 0, owners: [...touched] }
  }

  /** Forgets an object; returns the owners it named. */
  remove (key: string): string[] {
    const before = this.dependents.get(key)
    if (before === undefined) return []
    this.dependents.delete(key)
    for (const r of before.owners) this.unlink(r.uid, key)
    return before.owners.map(r => r.uid)
  }

  /** The objects naming `uid` as an owner. */
  dependentsOf (uid: string): Dependent[] {
    const keys = this.byOwner.get(uid)?.keys
    if (keys === undefined) return []
    const out: Dependent[] = []
    for (const k of keys) { const d = this.dependents.get(k); if (d !== undefined) out.push(d) }
    return out
  }

  hasDependents (uid: string): boolean { return (this.byOwner.get(uid)?.keys.size ?? 0) > 0 }

  get ownerCount (): number { return this.byOwner.size }

  /** A reference whose strings are the ones already kept for its owner, kind and group. */
  private shared (r: OwnerRef): OwnerRef {
    const owner = this.byOwner.get(r.uid)
    return {
      uid: owner?.uid ?? r.uid,
      group: this.word(r.group),
      kind: this.word(r.kind),
      name: owner !== undefined && owner.name === r.name ? owner.name : r.name,
      block: r.block
    }
  }

  private word (w: string): string {
    const known = this.words.get(w)
    if (known !== undefined) return known
    this.words.set(w, w)
    return w
  }

  private link (r: OwnerRef, key: string): void {
    let entry = this.byOwner.get(r.uid)
    if (entry === undefined) this.byOwner.set(r.uid, entry = { uid: r.uid, name: r.name, keys: new Set() })
    entry.keys.add(key)
  }

  private unlink (uid: string, key: string): void {
    const entry = this.byOwner.get(uid)
    if (entry === undefined) return
    entry.keys.delete(key)
    if (entry.keys.size === 0) this.byOwner.delete(uid)
  }
}
