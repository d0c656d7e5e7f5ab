// The garbage collector's graph: which objects name which owners, by owner uid, kept from the
// watch caches' events. Only objects that carry ownerReferences have an entry (most objects
// have none, and an owner is found through its kind's cache), so an object without owners
// costs nothing here and one with owners costs its references.
import type { GenericStore } from '../plugins/rest/store.js'

export interface OwnerRef {
  uid: string
  /** The owner's API group ('' for the core group), from its apiVersion. */
  group: string
  kind: string
  name: string
  /** blockOwnerDeletion: a foreground deletion of the owner waits for this dependent. */
  block: boolean
}

export interface Dependent {
  store: GenericStore
  key: string
  uid: string
  namespace: string
  name: string
  owners: OwnerRef[]
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
  /** Storage keys of the objects naming an owner uid. */
  private readonly byOwner = new Map<string, Set<string>>()

  /**
   * Records an object's owners. Returns the owner uids whose set of dependents changed (an
   * owner waiting for its dependents may now be free) and whether the object is new or its
   * references changed (it may now have an absent owner).
   */
  set (d: Dependent): { changed: boolean, owners: string[] } {
    const before = this.dependents.get(d.key)
    if (before !== undefined && before.uid === d.uid && sameRefs(before.owners, d.owners)) {
      this.dependents.set(d.key, d)
      return { changed: false, owners: [] }
    }
    const touched = new Set<string>()
    if (before !== undefined) for (const r of before.owners) { this.unlink(r.uid, d.key); touched.add(r.uid) }
    if (d.owners.length === 0) {
      this.dependents.delete(d.key)
    } else {
      this.dependents.set(d.key, d)
      for (const r of d.owners) { this.link(r.uid, d.key); touched.add(r.uid) }
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
    const keys = this.byOwner.get(uid)
    if (keys === undefined) return []
    const out: Dependent[] = []
    for (const k of keys) { const d = this.dependents.get(k); if (d !== undefined) out.push(d) }
    return out
  }

  hasDependents (uid: string): boolean { return (this.byOwner.get(uid)?.size ?? 0) > 0 }

  get ownerCount (): number { return this.byOwner.size }

  private link (uid: string, key: string): void {
    let set = this.byOwner.get(uid)
    if (set === undefined) this.byOwner.set(uid, set = new Set())
    set.add(key)
  }

  private unlink (uid: string, key: string): void {
    const set = this.byOwner.get(uid)
    if (set === undefined) return
    set.delete(key)
    if (set.size === 0) this.byOwner.delete(uid)
  }
}
