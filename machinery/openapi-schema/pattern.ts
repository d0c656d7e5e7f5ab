// `pattern` is a CRD author's regular expression run over client input. The reference uses Go's
// RE2, which is linear in the input; JavaScript's RegExp backtracks, so a hostile pattern could
// stall the event loop. RE2JS is RE2 in JavaScript: same syntax as Go, linear-time matching.
import { RE2JS } from 're2js'

export type CompiledPattern = { ok: true, re: RE2JS } | { ok: false, error: string }

// Patterns come from a few CRDs, but a bound keeps a stream of distinct ones from growing it.
const MAX_CACHED = 4096
const cache = new Map<string, CompiledPattern>()

export function compilePattern (pattern: string): CompiledPattern {
  let compiled = cache.get(pattern)
  if (compiled !== undefined) return compiled
  try {
    compiled = { ok: true, re: RE2JS.compile(pattern) }
  } catch (err) {
    compiled = { ok: false, error: err instanceof Error ? err.message : String(err) }
  }
  if (cache.size >= MAX_CACHED) cache.clear()
  cache.set(pattern, compiled)
  return compiled
}

/** Go's regexp.MatchString: true when the pattern matches anywhere in the input. */
export function patternMatches (re: RE2JS, input: string): boolean {
  return re.matcher(input).find()
}
