// Sets of field paths in the FieldsV1 form that metadata.managedFields carries: a path is a list
// of elements `f:<field>`, `k:{<key fields>}` (a map-list item), `v:<value>` (a set member) or
// `i:<index>`; `.` marks a node that is itself a member when it also has children.

/** One path element, spelled as in FieldsV1. */
export type PathElement = string
export type FieldPath = PathElement[]

export const fieldElement = (name: string): PathElement => `f:${name}`
export const valueElement = (value: unknown): PathElement => `v:${JSON.stringify(value)}`
export const indexElement = (index: number): PathElement => `i:${index}`
/** A map-list item by its key fields, sorted by name as the reference serialises them. */
export function keyElement (fields: Array<[string, unknown]>): PathElement {
  const sorted = [...fields].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
  return `k:{${sorted.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`
}

const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 }

/** Field names first (by name), then keys, values and indices, as the reference orders them. */
function compareElements (a: PathElement, b: PathElement): number {
  const ka = KIND_ORDER[a[0]!] ?? 4
  const kb = KIND_ORDER[b[0]!] ?? 4
  if (ka !== kb) return ka - kb
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2))
  return a < b ? -1 : a > b ? 1 : 0
}

/** The children of every node that has none: most nodes are leaves, and a Map each was most of a set's garbage. */
const NO_CHILDREN: ReadonlyMap<PathElement, FieldSet> = new Map()

/**
 * A node's elements in the serialised order. Nodes have a handful of children: an insertion sort
 * in place spares the work arrays Array.prototype.sort allocates (every write encodes its sets).
 */
function sortedElements (children: ReadonlyMap<PathElement, FieldSet>): PathElement[] {
  const keys = [...children.keys()]
  if (keys.length > 16) return keys.sort(compareElements)
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!
    let j = i - 1
    for (; j >= 0 && compareElements(keys[j]!, k) > 0; j--) keys[j + 1] = keys[j]!
    keys[j + 1] = k
  }
  return keys
}

export class FieldSet {
  /** Whether the path leading here is itself in the set. */
  member = false
  #children: Map<PathElement, FieldSet> | undefined

  get children (): ReadonlyMap<PathElement, FieldSet> { return this.#children ?? NO_CHILDREN }
  setChild (pe: PathElement, child: FieldSet): void { (this.#children ??= new Map()).set(pe, child) }
  deleteChild (pe: PathElement): void { this.#children?.delete(pe) }

  static of (paths: FieldPath[]): FieldSet {
    const s = new FieldSet()
    for (const p of paths) s.insert(p)
    return s
  }

  insert (path: FieldPath): void {
    let node: FieldSet = this
    for (const pe of path) {
      let next = node.children.get(pe)
      if (next === undefined) { next = new FieldSet(); node.setChild(pe, next) }
      node = next
    }
    node.member = true
  }

  has (path: FieldPath): boolean {
    let node: FieldSet | undefined = this
    for (const pe of path) { node = node.children.get(pe); if (node === undefined) return false }
    return node.member
  }

  child (pe: PathElement): FieldSet | undefined { return this.children.get(pe) }

  /** Whether no path (at any depth) is a member. */
  empty (): boolean {
    if (this.member) return false
    for (const c of this.children.values()) if (!c.empty()) return false
    return true
  }

  union (other: FieldSet): FieldSet {
    const out = new FieldSet()
    out.member = this.member || other.member
    for (const [pe, c] of this.children) out.setChild(pe, c.copy())
    for (const [pe, c] of other.children) {
      const mine = out.children.get(pe)
      out.setChild(pe, mine === undefined ? c.copy() : mine.union(c))
    }
    return out
  }

  difference (other: FieldSet | undefined): FieldSet {
    if (other === undefined) return this.copy()
    const out = new FieldSet()
    out.member = this.member && !other.member
    for (const [pe, c] of this.children) {
      const d = c.difference(other.children.get(pe))
      if (!d.empty()) out.setChild(pe, d)
    }
    return out
  }

  intersection (other: FieldSet | undefined): FieldSet {
    const out = new FieldSet()
    if (other === undefined) return out
    out.member = this.member && other.member
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe)
      if (o === undefined) continue
      const i = c.intersection(o)
      if (!i.empty()) out.setChild(pe, i)
    }
    return out
  }

  copy (): FieldSet {
    const out = new FieldSet()
    out.member = this.member
    for (const [pe, c] of this.children) out.setChild(pe, c.copy())
    return out
  }

  /** Every member path, depth first, in the serialised order. */
  paths (prefix: FieldPath = [], out: FieldPath[] = []): FieldPath[] {
    if (this.member && prefix.length > 0) out.push(prefix)
    for (const pe of [...this.children.keys()].sort(compareElements)) this.children.get(pe)!.paths([...prefix, pe], out)
    return out
  }

  equals (other: FieldSet): boolean {
    if (this.member !== other.member) return false
    const mine = [...this.children].filter(([, c]) => !c.empty())
    const theirs = [...other.children].filter(([, c]) => !c.empty())
    if (mine.length !== theirs.length) return false
    return mine.every(([pe, c]) => { const o = other.children.get(pe); return o !== undefined && c.equals(o) })
  }

  /** The FieldsV1 object: children sorted, `.` first where a member also has children. */
  toFieldsV1 (): Record<string, unknown> {
    // Every key has a one-letter prefix (`f:`, `k:`, ...), so plain assignment cannot reach a prototype.
    const out: Record<string, unknown> = {}
    const keys = this.children.size > 1 ? sortedElements(this.children) : this.children.keys()
    for (const pe of keys) {
      const c = this.children.get(pe)!
      const inner = c.toFieldsV1()
      let hasChildren = false
      for (const _ in inner) { hasChildren = true; break }
      if (!hasChildren && !c.member) continue
      if (hasChildren && c.member) {
        const withSelf: Record<string, unknown> = { '.': {} }
        for (const k in inner) withSelf[k] = inner[k]
        out[pe] = withSelf
      } else out[pe] = inner
    }
    return out
  }

  /**
   * A FieldsV1 value as the reference decodes it, or undefined when it cannot be (a value that is
   * not an object, a key that is not `.`, `f:`, `v:<json>`, `i:<int>` or `k:<json object>`).
   */
  static decodeFieldsV1 (value: unknown): FieldSet | undefined {
    if (value === undefined || value === null) return new FieldSet()
    return wellFormedFieldsV1(value) ? FieldSet.fromFieldsV1(value) : undefined
  }

  static fromFieldsV1 (value: unknown): FieldSet {
    const s = new FieldSet()
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return s
    for (const [pe, inner] of Object.entries(value)) {
      if (pe === '.') { s.member = true; continue }
      const c = FieldSet.fromFieldsV1(inner)
      if (c.children.size === 0) c.member = true
      s.setChild(pe, c)
    }
    return s
  }
}

/** A path as conflict messages print it: `.spec.containers[name="web"].image`, `[="a"]`, `[0]`. */
export function pathString (path: FieldPath): string {
  return path.map(pe => {
    const body = pe.slice(2)
    switch (pe[0]) {
      case 'f': return `.${body}`
      case 'i': return `[${body}]`
      case 'v': return `[=${printValue(JSON.parse(body))}]`
      case 'k': return `[${Object.entries(JSON.parse(body) as Record<string, unknown>).map(([k, v]) => `${k}=${printValue(v)}`).join(',')}]`
      default: return pe
    }
  }).join('')
}

/** Values as the reference prints them in paths: strings quoted, others bare. */
function printValue (v: unknown): string {
  if (v === null) return 'null'
  if (typeof v === 'string') return JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(printValue).join(',')}]`
  if (typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k}=${printValue(x)}`).join('')
  return String(v)
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function wellFormedFieldsV1 (value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const node = pending.pop()
    if (!isObject(node)) return false
    for (const [pe, inner] of Object.entries(node)) {
      if (pe !== '.' && !wellFormedElement(pe)) return false
      pending.push(inner)
    }
  }
  return true
}

function wellFormedElement (pe: string): boolean {
  const body = pe.slice(2)
  switch (pe.slice(0, 2)) {
    case 'f:': return true
    case 'i:': return /^-?[0-9]+$/.test(body)
    case 'v:': return parses(body, () => true)
    case 'k:': return parses(body, isObject)
    default: return false
  }
}

function parses (text: string, accept: (v: unknown) => boolean): boolean {
  try { return accept(JSON.parse(text)) } catch { return false }
}
