// A mutating webhook's JSON patch (RFC 6902) applied as the reference applies one (evanphx
// json-patch v4 with its defaults: negative array indexes, no bound on operations). Unlike a
// client's patch it has no 10,000-operation limit, so each operation costs what its path and
// value cost, never a copy of the document. Keys are written as own data properties, so a key
// named `__proto__` or `constructor` is a key like any other and reaches validation.
type AnyObject = Record<string, any>

/** What the reference server's copies may add, kept as a bound on a webhook patch too: a copy into itself doubles the document. */
const MAX_COPY_BYTES = 3 * 1024 * 1024

export class PatchError extends Error {}
/** A `test` operation that did not hold: the reference's ErrTestFailed, which a policy's patch treats as no change. */
export class TestFailed extends PatchError {}

const isContainer = (v: unknown): v is AnyObject | unknown[] => typeof v === 'object' && v !== null

function tokens (path: unknown, op: string): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) throw new PatchError(`${op} operation has an invalid path: ${JSON.stringify(path)}`)
  return path === '' ? [] : path.slice(1).split('/').map(t => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function setOwn (o: AnyObject, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
}

/** An array index; `-` (the end) only where `end` allows it. Negative indexes count from the end. */
function index (arr: unknown[], token: string, op: string, path: string, insert: boolean): number {
  if (insert && token === '-') return arr.length
  if (!/^-?\d+$/.test(token)) throw new PatchError(`${op} operation does not apply: invalid array index ${JSON.stringify(token)} in ${JSON.stringify(path)}`)
  let i = Number(token)
  const max = insert ? arr.length : arr.length - 1
  if (i < -arr.length || i > max) throw new PatchError(`${op} operation does not apply: index out of bounds in ${JSON.stringify(path)}`)
  if (i < 0) i += arr.length
  return i
}

/** The container the path's last token is in. */
function parentOf (doc: unknown, parts: string[], op: string, path: string): AnyObject | unknown[] {
  let node: unknown = doc
  for (const t of parts.slice(0, -1)) {
    if (Array.isArray(node)) node = node[index(node, t, op, path, false)]
    else if (isContainer(node) && Object.hasOwn(node, t)) node = (node as AnyObject)[t]
    else throw new PatchError(`${op} operation does not apply: doc is missing path: ${JSON.stringify(path)}`)
  }
  if (!isContainer(node)) throw new PatchError(`${op} operation does not apply: doc is missing path: ${JSON.stringify(path)}`)
  return node
}

function get (doc: unknown, path: unknown, op: string): unknown {
  const parts = tokens(path, op)
  if (parts.length === 0) return doc
  const parent = parentOf(doc, parts, op, String(path))
  const last = parts[parts.length - 1]!
  if (Array.isArray(parent)) return parent[index(parent, last, op, String(path), false)]
  if (!Object.hasOwn(parent, last)) throw new PatchError(`${op} operation does not apply: doc is missing key: ${String(path)}`)
  return parent[last]
}

function add (doc: unknown, path: unknown, value: unknown, op: string): void {
  const parts = tokens(path, op)
  if (parts.length === 0) throw new PatchError(`${op} operation does not apply: doc is missing path: ""`)
  const parent = parentOf(doc, parts, op, String(path))
  const last = parts[parts.length - 1]!
  if (Array.isArray(parent)) parent.splice(index(parent, last, op, String(path), true), 0, value)
  else setOwn(parent, last, value)
}

function remove (doc: unknown, path: unknown, op: string): unknown {
  const parts = tokens(path, op)
  if (parts.length === 0) throw new PatchError(`${op} operation does not apply: doc is missing path: ""`)
  const parent = parentOf(doc, parts, op, String(path))
  const last = parts[parts.length - 1]!
  if (Array.isArray(parent)) return parent.splice(index(parent, last, op, String(path), false), 1)[0]
  if (!Object.hasOwn(parent, last)) throw new PatchError(`${op} operation does not apply: doc is missing key: ${String(path)}`)
  const old = parent[last]
  delete parent[last]
  return old
}

function replace (doc: unknown, path: unknown, value: unknown): void {
  const parts = tokens(path, 'replace')
  if (parts.length === 0) throw new PatchError('replace operation does not apply: doc is missing path: ""')
  const parent = parentOf(doc, parts, 'replace', String(path))
  const last = parts[parts.length - 1]!
  if (Array.isArray(parent)) parent[index(parent, last, 'replace', String(path), false)] = value
  else if (!Object.hasOwn(parent, last)) throw new PatchError(`replace operation does not apply: doc is missing key: ${String(path)}`)
  else setOwn(parent, last, value)
}

function valueOf (op: AnyObject): unknown {
  if (!Object.hasOwn(op, 'value')) throw new PatchError(`${String(op.op)} operation has no value`)
  return op.value
}

/** Applies `ops` to `doc` in place (pass a copy) and returns the result. */
export function applyWebhookPatch (doc: AnyObject, ops: AnyObject[]): AnyObject {
  let copied = 0
  for (const op of ops) {
    switch (op.op) {
      // The operations are freshly parsed: their values are the patch's own, never shared.
      case 'add': add(doc, op.path, valueOf(op), 'add'); break
      case 'remove': remove(doc, op.path, 'remove'); break
      case 'replace': replace(doc, op.path, valueOf(op)); break
      case 'move': {
        const value = remove(doc, op.from, 'move')
        add(doc, op.path, value, 'move')
        break
      }
      case 'copy': {
        const value = get(doc, op.from, 'copy')
        copied += JSON.stringify(value ?? null).length
        if (copied > MAX_COPY_BYTES) throw new PatchError(`unable to copy: the copies of this patch exceed ${MAX_COPY_BYTES} bytes`)
        add(doc, op.path, structuredClone(value), 'copy')
        break
      }
      case 'test':
        if (JSON.stringify(canonical(get(doc, op.path, 'test'))) !== JSON.stringify(canonical(valueOf(op)))) throw new TestFailed(`testing value ${String(op.path)} failed`)
        break
      default: throw new PatchError(`Unexpected kind: ${typeof op.op === 'string' ? op.op : 'unknown'}`)
    }
  }
  return doc
}

/** A value with its object keys sorted, so that equal documents serialize alike. */
function canonical (v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical)
  if (!isContainer(v)) return v
  const out: AnyObject = {}
  for (const k of Object.keys(v).sort()) setOwn(out, k, canonical((v as AnyObject)[k]))
  return out
}
