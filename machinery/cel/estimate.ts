// The worst-case cost of a checked rule, estimated from the sizes its schema allows, after
// cel-go's checker/cost.go and the Kubernetes library costs (apiserver/pkg/cel/library/cost.go):
// one unit per identifier, field selection and call; strings traversed at a tenth of a unit per
// byte; regexes by string × pattern; comprehensions by the size of what they iterate times the
// cost of one step. Not bit-exact with the reference: close enough that the rules it refuses
// (unbounded lists iterated inside each other, regexes over unbounded strings in unbounded
// lists) are refused here and bounded ones pass.
import type { SizeNode } from './sizes.js'

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
/** Per element of map() and filter(): `accu + [x]`, a list created and concatenated. */
const APPEND = LIST_CREATE + 2

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

/** The size of a string, list or map nothing bounds (a function's result), unbounded as in cel-go. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER

const unknown = (cost: number, kind: Kind): Est => ({ cost, size: kind === 'other' ? 0 : UNBOUNDED, kind })

function elemOf (e: Est): Est {
  if (e.elem !== undefined) return { ...e.elem, cost: 0 }
  const n = e.node?.elem
  return n === undefined ? unknown(0, 'other') : fromNode(n, 0)
}

function keyOf (e: Est): Est {
  const n = e.node?.key
  return n === undefined ? unknown(0, 'string') : fromNode(n, 0)
}

/** The size cel-go compares by: a scalar counts 1, strings their bytes, lists and maps their entries. */
const compareSize = (e: Est): number => e.kind === 'other' ? 1 : e.size

/** Equality (and string ordering): a tenth of a unit per unit of the smaller side, as cel-go. */
const equalityCost = (a: Est, b: Est): number => traverse(Math.min(compareSize(a), compareSize(b)))

// Kubernetes library functions costing a tenth of a unit per byte of their string input
// (library/cost.go); lowerAscii and its kin return a string as long as their receiver.
const STRING_READERS = new Set(['url', 'quantity', 'isQuantity', 'cidr', 'isIP', 'isCIDR', 'ip', 'format', 'lowerAscii', 'upperAscii', 'substring', 'trim'])
const SAME_SIZE = new Set(['lowerAscii', 'upperAscii', 'substring', 'trim'])
const LIST_SCANS = new Set(['isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf'])
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
    const bool = (cost: number): Est => ({ cost, size: 0, kind: 'other' })
    switch (n.op) {
      case '==': case '!=': return bool(base + equalityCost(l, r))
      case '<': case '<=': case '>': case '>=': return bool(base + (l.kind === 'string' ? equalityCost(l, r) : 1))
      // list membership is charged one unit per item, whatever the items are
      case 'in': return bool(base + (r.kind === 'list' ? r.size : 1))
      case '+':
        if (l.kind === 'string') return { cost: base + traverse(l.size + r.size), size: l.size + r.size, kind: 'string' }
        // list concatenation is O(1) in cel-go; only its size grows
        if (l.kind === 'list') return { cost: base + 1, size: l.size + r.size, kind: 'list', elem: elemOf(l.size >= r.size ? l : r) }
        return bool(base + 1)
      default: return { cost: base + 1, size: 0, kind: kindOf(n) }
    }
  }

  private call (n: AstNode, scope: ReadonlyMap<string, Est>): Est {
    const parts = (n.args as unknown[]).flat()
    const name = parts[0] as string
    const targetNode = n.op === 'rcall' ? parts[1] as AstNode : undefined
    const argNodes = parts.slice(n.op === 'rcall' ? 2 : 1) as AstNode[]
    if (name === 'has' && n.op === 'call') {
      // the presence test costs one, plus its operand
      return { cost: this.est((argNodes[0].args as AstNode[])[0], scope).cost + 1, size: 0, kind: 'other' }
    }
    if (targetNode !== undefined && COMPREHENSIONS.has(name) && argNodes[0]?.op === 'id') return this.comprehension(name, targetNode, argNodes, scope)
    const target = targetNode === undefined ? undefined : this.est(targetNode, scope)
    const args = argNodes.map((x) => this.est(x, scope))
    const inputs = (target?.cost ?? 0) + args.reduce((s, x) => s + x.cost, 0)
    const [arg0, arg1] = args
    const result = (cost: number, size = 0, kind: Kind = kindOf(n), elem?: Est): Est => ({ cost: inputs + cost, size, kind, elem })
    if (target !== undefined) {
      switch (name) {
        case 'matches': case 'find': case 'findAll': {
          const cost = Math.ceil((target.size + 1) * STRING_TRAVERSAL) * Math.ceil((arg0?.size ?? 0) * REGEX_PATTERN_FACTOR)
          return name === 'findAll' ? result(cost, target.size, 'list', { cost: 0, size: target.size, kind: 'string' }) : result(cost, name === 'find' ? target.size : 0)
        }
        case 'contains': if (target.kind === 'string') return result(traverse(target.size) * traverse(arg0?.size ?? 0)); break
        case 'startsWith': case 'endsWith': return result(traverse(arg0?.size ?? 0))
        case 'replace': return result(traverse(2 * target.size), target.size, 'string')
        case 'split': return result(traverse(2 * target.size), target.size, 'list', { cost: 0, size: target.size, kind: 'string' })
        case 'join': {
          const size = target.size * elemOf(target).size + (arg0?.size ?? 0) * Math.max(0, target.size - 1)
          return result(traverse(size), size, 'string')
        }
      }
      if (LIST_SCANS.has(name)) {
        if (target.kind === 'list') {
          const item = elemOf(target)
          return result(target.size * (1 + (item.kind === 'string' ? traverse(item.size) : 0)), 0, kindOf(n, 'other'))
        }
        if (target.kind === 'string') return result(traverse(target.size))
      }
      // optional.value() and orValue() stand for the value inside
      if (name === 'value' || name === 'orValue') return { ...target, cost: inputs + 1 }
    }
    if (STRING_READERS.has(name)) {
      const input = target?.kind === 'string' ? target : arg0
      const size = input?.size ?? 0
      return SAME_SIZE.has(name) ? result(traverse(size), size, 'string') : result(traverse(size))
    }
    return result(1, kindOf(n) === 'other' ? 0 : UNBOUNDED)
  }

  /**
   * A macro as cel-go expands it: its range, its accumulator's initial value and result, and per
   * element the loop condition and step (e.g. all(): `@not_strictly_false(accu)` and `accu && p`).
   */
  private comprehension (name: string, rangeNode: AstNode, argNodes: AstNode[], outer: ReadonlyMap<string, Est>): Est {
    const range = this.est(rangeNode, outer)
    const scope = new Map(outer)
    const variable = argNodes[0].args as string
    // A map is iterated by its keys, a list by its items.
    scope.set(variable, range.kind === 'map' ? keyOf(range) : elemOf(range))
    const body = argNodes.slice(1).map((b) => this.est(b, scope))
    const bodyCost = body.reduce((s, x) => s + x.cost, 0)
    // per element: condition + step beyond the body; once: the accumulator's init and result
    const shape: Record<string, [number, number]> = {
      all: [1 + 2, 0 + 1],
      exists: [1 + 3, 0 + 1],
      exists_one: [2, 0 + 2],
      map: [APPEND, LIST_CREATE + 1],
      filter: [APPEND + 1, LIST_CREATE + 1]
    }
    const [perItem, once] = shape[name]
    const cost = cap(range.cost + once + range.size * (bodyCost + perItem))
    if (name === 'map') return { cost, size: range.size, kind: 'list', elem: { ...body[body.length - 1], cost: 0 } }
    if (name === 'filter') return { cost, size: range.size, kind: 'list', elem: range.kind === 'map' ? keyOf(range) : elemOf(range) }
    return { cost, size: 0, kind: 'other' }
  }
}

/** The estimated worst-case cost of one evaluation of the checked `ast`, `self` sized by `root`. */
export function estimateCost (ast: unknown, root: SizeNode): number {
  return cap(new Estimator(root).est(ast as AstNode, new Map()).cost)
}
