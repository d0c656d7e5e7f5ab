// The worst-case cost of a checked rule, estimated from the sizes its schema allows, after
// cel-go's checker/cost.go and the Kubernetes library costs (apiserver/pkg/cel/library/cost.go):
// one unit per identifier, field selection and call; strings traversed at a tenth of a unit per
// byte; regexes by string × pattern; comprehensions by the size of what they iterate times the
// cost of one step. Not bit-exact with the reference: close enough that the rules it refuses
// (unbounded lists iterated inside each other, regexes over unbounded strings in unbounded
// lists) are refused here and bounded ones pass.
import { MAX_REQUEST_SIZE_BYTES, type SizeNode } from './sizes.js'

type Kind = 'string' | 'list' | 'map' | 'other'

interface Est {
  cost: number
  /** bytes of a string, items of a list, entries of a map */
  size: number
  kind: Kind
  /** where the value comes from in the schema, when it does */
  node?: SizeNode
  /** the items (values of maps) when they are not from the schema */
  elem?: Est
}

interface AstNode { op: string, args: unknown, checkedType?: unknown }

// Per-operation costs of cel-go (common/cost.go).
const STRING_TRAVERSAL = 0.1
const REGEX_PATTERN_FACTOR = 0.25
const LIST_CREATE = 10
const MAP_CREATE = 30
/** Per element, beyond the step itself: the accumulator, the loop condition and its call. */
const LOOP_OVERHEAD = 3
/** Per element of map() and filter(): appending to the accumulated list. */
const APPEND_OVERHEAD = LIST_CREATE + 2

const traverse = (bytes: number): number => Math.ceil(bytes * STRING_TRAVERSAL)
const cap = (n: number): number => Math.min(n, Number.MAX_SAFE_INTEGER)

function kindOf (node: AstNode | undefined, fallback: Kind = 'other'): Kind {
  const t = String(node?.checkedType ?? '')
  if (t === 'string' || t === 'bytes') return 'string'
  if (t.startsWith('list')) return 'list'
  if (t.startsWith('map')) return 'map'
  return fallback
}

const fromNode = (n: SizeNode, cost: number): Est =>
  ({ cost, size: n.maxElements, node: n, kind: n.kind === 'string' ? 'string' : n.kind === 'list' ? 'list' : n.kind === 'map' ? 'map' : 'other' })

/** A value the schema does not bound: nothing in one object is larger than one request. */
const unknown = (cost: number, kind: Kind): Est => ({ cost, size: kind === 'other' ? 0 : MAX_REQUEST_SIZE_BYTES, kind })

function elemOf (e: Est): Est {
  if (e.elem !== undefined) return { ...e.elem, cost: 0 }
  const n = e.node?.elem
  return n === undefined ? unknown(0, 'other') : fromNode(n, 0)
}

function keyOf (e: Est): Est {
  const n = e.node?.key
  return n === undefined ? unknown(0, 'string') : fromNode(n, 0)
}

/** Comparing two values for equality or order: strings byte by byte, lists and maps item by item. */
function compareCost (a: Est, b: Est): number {
  const size = Math.min(a.size, b.size)
  if (a.kind === 'string' || b.kind === 'string') return 1 + traverse(size)
  if (a.kind === 'list' || a.kind === 'map') return 1 + size * compareCost(elemOf(a), elemOf(b))
  return 1
}

// Functions that read every byte of their string inputs once.
const STRING_READERS = new Set(['lowerAscii', 'upperAscii', 'trim', 'replace', 'substring', 'reverse', 'charAt', 'quote', 'quantity',
  'isQuantity', 'url', 'isURL', 'ip', 'isIP', 'cidr', 'isCIDR', 'semver', 'isSemver', 'duration', 'timestamp', 'string', 'int', 'uint',
  'double', 'bytes', 'validate', 'format', 'split', 'getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath', 'getQuery'])
// Those whose result is as long as the receiver.
const SAME_SIZE = new Set(['lowerAscii', 'upperAscii', 'trim', 'replace', 'substring', 'reverse', 'quote'])
const LIST_READERS = new Set(['sum', 'min', 'max', 'isSorted', 'distinct', 'flatten', 'slice'])
const SET_FUNCTIONS = new Set(['sets.contains', 'sets.intersects', 'sets.equivalent'])
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter'])

class Estimator {
  constructor (private readonly root: SizeNode) {}

  est (n: AstNode, scope: ReadonlyMap<string, Est>): Est {
    const args = n.args as unknown[]
    switch (n.op) {
      case 'value': return typeof n.args === 'string' ? { cost: 0, size: Buffer.byteLength(n.args), kind: 'string' } : { cost: 0, size: 0, kind: 'other' }
      case 'id': {
        const name = n.args as string
        const bound = scope.get(name)
        if (bound !== undefined) return { ...bound, cost: 1 }
        if (name === 'self' || name === 'oldSelf') return fromNode(this.root, 1)
        return unknown(1, kindOf(n))
      }
      case '.': case '.?': {
        const o = this.est(args[0] as AstNode, scope)
        const field = o.node?.fields?.get(args[1] as string) ?? (o.node?.kind === 'map' ? o.node.elem : undefined)
        return field === undefined ? unknown(o.cost + 1, kindOf(n)) : fromNode(field, o.cost + 1)
      }
      case '[]': case '[?]': {
        const o = this.est(args[0] as AstNode, scope)
        const k = this.est(args[1] as AstNode, scope)
        return { ...elemOf(o), cost: o.cost + k.cost + 1 }
      }
      case '?:': {
        const [c, a, b] = args.map((x) => this.est(x as AstNode, scope))
        return { ...(a.size >= b.size ? a : b), cost: c.cost + Math.max(a.cost, b.cost) }
      }
      case '&&': case '||': return { cost: args.reduce<number>((s, x) => s + this.est(x as AstNode, scope).cost, 0), size: 0, kind: 'other' }
      case '!_': case '-_': return { cost: this.est(n.args as AstNode, scope).cost + 1, size: 0, kind: 'other' }
      case 'list': {
        const items = args.map((x) => this.est(x as AstNode, scope))
        const elem = items.reduce<Est | undefined>((m, x) => m === undefined || x.size > m.size ? x : m, undefined)
        return { cost: LIST_CREATE + items.reduce((s, x) => s + x.cost, 0), size: items.length, kind: 'list', elem }
      }
      case 'map': {
        const entries = (args as unknown[][]).map(([k, v]) => this.est(k as AstNode, scope).cost + this.est(v as AstNode, scope).cost)
        return { cost: MAP_CREATE + entries.reduce((s, x) => s + x, 0), size: entries.length, kind: 'map' }
      }
      case 'call': case 'rcall': return this.call(n, scope)
      default:
        // Binary operators; any other node (the parser makes none after checking) costs one unit.
        return Array.isArray(n.args) && n.args.length === 2 ? this.operator(n, scope) : unknown(1, kindOf(n))
    }
  }

  private operator (n: AstNode, scope: ReadonlyMap<string, Est>): Est {
    const [l, r] = (n.args as AstNode[]).map((x) => this.est(x, scope))
    const base = l.cost + r.cost
    switch (n.op) {
      case '==': case '!=': case '<': case '<=': case '>': case '>=':
        return { cost: base + compareCost(l, r), size: 0, kind: 'other' }
      case 'in':
        return { cost: base + (r.kind === 'list' ? r.size * compareCost(l, elemOf(r)) : 1), size: 0, kind: 'other' }
      case '+':
        if (l.kind === 'string') return { cost: base + 1 + traverse(l.size + r.size), size: l.size + r.size, kind: 'string' }
        if (l.kind === 'list') return { cost: base + 1 + l.size + r.size, size: l.size + r.size, kind: 'list', elem: elemOf(l.size >= r.size ? l : r) }
        return { cost: base + 1, size: 0, kind: 'other' }
      default: return { cost: base + 1, size: 0, kind: kindOf(n) }
    }
  }

  private call (n: AstNode, scope: ReadonlyMap<string, Est>): Est {
    const parts = (n.args as unknown[]).flat()
    const name = parts[0] as string
    const receiverNode = n.op === 'rcall' ? parts[1] as AstNode : undefined
    const argNodes = parts.slice(n.op === 'rcall' ? 2 : 1) as AstNode[]
    if (name === 'has' && n.op === 'call') {
      const select = argNodes[0]
      return { cost: this.est((select.args as AstNode[])[0], scope).cost + 1, size: 0, kind: 'other' }
    }
    if (receiverNode !== undefined && COMPREHENSIONS.has(name) && argNodes[0]?.op === 'id') return this.comprehension(name, receiverNode, argNodes, scope)
    const recv = receiverNode === undefined ? undefined : this.est(receiverNode, scope)
    const ins = argNodes.map((x) => this.est(x, scope))
    const inputs = recv === undefined ? ins : [recv, ...ins]
    const base = inputs.reduce((s, x) => s + x.cost, 0)
    const [first, second] = inputs
    const strings = inputs.filter((x) => x.kind === 'string').reduce((s, x) => s + x.size, 0)
    if (name === 'matches' || name === 'find' || name === 'findAll') {
      const cost = Math.ceil(((first?.size ?? 0) + 1) * STRING_TRAVERSAL) * Math.ceil((second?.size ?? 0) * REGEX_PATTERN_FACTOR)
      return name === 'findAll'
        ? { cost: base + cost, size: first?.size ?? 0, kind: 'list', elem: { cost: 0, size: first?.size ?? 0, kind: 'string' } }
        : { cost: base + cost, size: first?.size ?? 0, kind: kindOf(n) }
    }
    if ((name === 'contains' || name === 'indexOf' || name === 'lastIndexOf') && first?.kind === 'string') {
      return { cost: base + traverse(first.size) * traverse(second?.size ?? 0), size: 0, kind: 'other' }
    }
    if (name === 'startsWith' || name === 'endsWith') return { cost: base + traverse(second?.size ?? 0), size: 0, kind: 'other' }
    if (name === 'size') return { cost: base + 1, size: 0, kind: 'other' }
    if (name === 'join' && first?.kind === 'list') {
      const total = first.size * elemOf(first).size
      return { cost: base + 1 + traverse(total), size: total, kind: 'string' }
    }
    if (STRING_READERS.has(name)) {
      const cost = base + 1 + traverse(strings)
      if (name === 'split') return { cost, size: first?.size ?? 0, kind: 'list', elem: { cost: 0, size: first?.size ?? 0, kind: 'string' } }
      if (SAME_SIZE.has(name)) return { cost, size: first?.size ?? 0, kind: 'string' }
      return { cost, size: kindOf(n) === 'other' ? 0 : MAX_REQUEST_SIZE_BYTES, kind: kindOf(n) }
    }
    if ((LIST_READERS.has(name) || name === 'indexOf' || name === 'lastIndexOf') && first?.kind === 'list') {
      const perItem = compareCost(elemOf(first), elemOf(first))
      return { ...first, cost: base + 1 + first.size * perItem, kind: kindOf(n, first.kind) }
    }
    if (SET_FUNCTIONS.has(name) && first !== undefined && second !== undefined) {
      return { cost: base + 1 + first.size * second.size * compareCost(elemOf(first), elemOf(second)), size: 0, kind: 'other' }
    }
    // optional.value() and orValue() stand for the value inside.
    if ((name === 'value' || name === 'orValue') && recv !== undefined) return { ...recv, cost: base + 1 }
    return { cost: base + 1, size: kindOf(n) === 'other' ? 0 : MAX_REQUEST_SIZE_BYTES, kind: kindOf(n) }
  }

  private comprehension (name: string, rangeNode: AstNode, argNodes: AstNode[], outer: ReadonlyMap<string, Est>): Est {
    const range = this.est(rangeNode, outer)
    const scope = new Map(outer)
    // Two-variable forms: all(i, v, p) over a list's indexes and items or a map's keys and values.
    const twoVars = (name === 'all' || name === 'exists' || name === 'exists_one') && argNodes.length === 3
    const vars = argNodes.slice(0, twoVars ? 2 : 1).map((x) => x.args as string)
    const body = argNodes.slice(vars.length)
    if (range.kind === 'map') {
      scope.set(vars[0], keyOf(range))
      if (twoVars) scope.set(vars[1], elemOf(range))
    } else {
      if (twoVars) scope.set(vars[0], { cost: 0, size: 0, kind: 'other' })
      scope.set(vars[vars.length - 1], elemOf(range))
    }
    const steps = body.map((b) => this.est(b, scope))
    const stepCost = steps.reduce((s, x) => s + x.cost, 0)
    const perItem = name === 'map' || name === 'filter' ? stepCost + APPEND_OVERHEAD : stepCost + LOOP_OVERHEAD
    const cost = cap(range.cost + range.size * perItem)
    if (name === 'map') return { cost, size: range.size, kind: 'list', elem: { ...steps[steps.length - 1], cost: 0 } }
    if (name === 'filter') return { cost, size: range.size, kind: 'list', elem: range.kind === 'map' ? keyOf(range) : elemOf(range) }
    return { cost, size: 0, kind: 'other' }
  }
}

/** The estimated worst-case cost of one evaluation of the checked `ast`, `self` sized by `root`. */
export function estimateCost (ast: unknown, root: SizeNode): number {
  return cap(new Estimator(root).est(ast as AstNode, new Map()).cost)
}
