// The reference's regex library (find, findAll) and `matches`, on RE2 semantics through re2js: a
// linear-time engine, so no pattern backtracks catastrophically. The engine's own `matches` uses
// JavaScript's backtracking RegExp and cannot be overloaded again, so `useRe2Matches` rewires
// each compiled `matches` call to RE2.
import type { Environment } from '@marcbachmann/cel-js'
import { RE2JS } from 're2js'
import { charge } from '../cost.js'
import { stringCost } from './values.js'
import { walkAst } from '../ast-walk.js'

const cache = new Map<string, RE2JS>()
const CACHE_SIZE = 256

export function compileRegex (pattern: string): RE2JS {
  let re = cache.get(pattern)
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern)
    } catch (err) {
      throw new Error(`error parsing regexp: ${(err as Error).message}`)
    }
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!)
    cache.set(pattern, re)
  }
  return re
}

// RE2 matching is linear in the input for a compiled program, whose size grows with the pattern.
const regexCost = (s: string, pattern: string): number => stringCost(s) * Math.max(1, Math.ceil(pattern.length / 4))

function findAll (s: string, pattern: string, limit: bigint): string[] {
  charge(regexCost(s, pattern))
  const m = compileRegex(pattern).matcher(s)
  const out: string[] = []
  while ((limit < 0n || BigInt(out.length) < limit) && m.find()) out.push(m.group() ?? '')
  return out
}

export function registerRegex (env: Environment): void {
  // the engine has the method form only; the function form is cel-go's too
  env.registerFunction('matches(string, string): bool', re2Matches)
  env.registerFunction('string.find(string): string', (s: string, pattern: string) => findAll(s, pattern, 1n)[0] ?? '')
  env.registerFunction('string.findAll(string): list<string>', (s: string, pattern: string) => findAll(s, pattern, -1n))
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, pattern: string, n: bigint) => findAll(s, pattern, n))
}

export function re2Matches (s: string, pattern: string): boolean {
  charge(regexCost(s, pattern))
  return compileRegex(pattern).matcher(s).find()
}

interface CallNode { op: string, args: unknown, meta: Record<string, unknown>, setMeta: (k: string, v: unknown) => unknown }
type Run = { run: (node: unknown, ctx: unknown) => unknown }

/** Points every `s.matches(p)` call of a checked AST at RE2. */
export function useRe2Matches (root: unknown): void {
  walkAst(root, (x) => {
    const node = x as unknown as CallNode
    if (typeof node.setMeta !== 'function') return undefined
    const args = node.args as unknown[]
    if (node.op === 'rcall' && args[0] === 'matches' && (args[2] as unknown[]).length === 1) {
      const [, receiver, [pattern]] = args as [string, unknown, unknown[]]
      node.setMeta('evaluate', (ev: Run, _ast: unknown, ctx: unknown) => re2Matches(ev.run(receiver, ctx) as string, ev.run(pattern, ctx) as string))
    }
    return node.meta.alternate === undefined ? [node.args] : [node.meta.alternate, node.args]
  })
}
