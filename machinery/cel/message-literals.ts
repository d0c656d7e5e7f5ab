// CEL message construction (`Object{spec: Object.spec{replicas: 1}}`, `JSONPatch{op: "add"}`),
// which the mutating admission policies' expressions build their results with and the engine
// does not parse. A source with such literals is rewritten into calls the engine knows before it
// is parsed: `Name{f: v}` becomes `<constructor>("Name", {"f": dyn(v)})` (dyn keeps a literal with
// fields of different types a homogeneous map), `?f: v` `{"f": dyn(__k8s_optional_field(v))}`, and every character of the rewritten source
// remembers where it came from, so compile errors still point into what the user wrote.

/** What `?field: value` wraps its value in: a function from `optional<A>` that the constructors read. */
export const OPTIONAL_FIELD = '__k8s_optional_field'

/** What a literal of `typeName` is rewritten to call; undefined refuses the name. */
export type ConstructorFor = (typeName: string) => { call: string, withName: boolean } | undefined

export interface Rewritten {
  source: string
  /** the user's offset of each offset of `source` (one more entry, for the end) */
  origin: number[]
  /** a literal whose type is not known: its name and offset */
  unknownType?: { name: string, at: number }
}

interface Token { text: string, at: number, kind: 'ident' | 'string' | 'space' | 'punct' }

// Keywords that may stand before a map literal (`x in {...}`) and so never name a message type.
const NOT_TYPE_NAMES = new Set(['in', 'true', 'false', 'null'])

function tokens (src: string): Token[] {
  const out: Token[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    const start = i
    if (/\s/.test(c)) {
      while (i < src.length && /\s/.test(src[i]!)) i++
      out.push({ text: src.slice(start, i), at: start, kind: 'space' })
    } else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++
      out.push({ text: src.slice(start, i), at: start, kind: 'space' })
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i]!)) i++
      // r"..." and b'...' prefixes belong to the string that follows.
      if (/^[rRbB]{1,2}$/.test(src.slice(start, i)) && (src[i] === '"' || src[i] === "'")) i = stringEnd(src, i, /r/i.test(src.slice(start, i)))
      out.push({ text: src.slice(start, i), at: start, kind: /["']$/.test(src.slice(start, i)) ? 'string' : 'ident' })
    } else if (c === '"' || c === "'") {
      i = stringEnd(src, i, false)
      out.push({ text: src.slice(start, i), at: start, kind: 'string' })
    } else {
      i++
      out.push({ text: c, at: start, kind: 'punct' })
    }
  }
  return out
}

/** The offset after the string literal opening at `i` (single or triple quoted); the end of input when it is unterminated. */
function stringEnd (src: string, i: number, raw: boolean): number {
  const q = src[i]!
  const triple = src.startsWith(q.repeat(3), i)
  const close = triple ? q.repeat(3) : q
  let j = i + close.length
  while (j < src.length) {
    if (!raw && src[j] === '\\') { j += 2; continue }
    if (src.startsWith(close, j)) return j + close.length
    if (!triple && src[j] === '\n') return j
    j++
  }
  return src.length
}

/** Whether `src` may hold a message literal at all (the common case, none, is not tokenized). */
const MAYBE_LITERAL = /[A-Za-z_][A-Za-z0-9_]*\s*\{/

export function rewriteMessageLiterals (src: string, constructorFor: ConstructorFor): Rewritten {
  if (!MAYBE_LITERAL.test(src)) return { source: src, origin: [...Array(src.length + 1).keys()] }
  const toks = tokens(src)
  let out = ''
  const origin: number[] = []
  let unknownType: Rewritten['unknownType']
  const emit = (text: string, at: number): void => {
    out += text
    for (let k = 0; k < text.length; k++) origin.push(at)
  }
  const copy = (t: Token): void => {
    out += t.text
    for (let k = 0; k < t.text.length; k++) origin.push(t.at + k)
  }
  const skipSpace = (i: number): number => { while (toks[i]?.kind === 'space') i++; return i }
  const prevSignificant = (i: number): Token | undefined => { let j = i - 1; while (toks[j]?.kind === 'space') j--; return toks[j] }

  /** The dotted name starting at `i` and the index of the `{` after it, when a literal starts there. */
  const literalAt = (i: number): { name: string, brace: number } | undefined => {
    const t = toks[i]!
    if (t.kind !== 'ident' || NOT_TYPE_NAMES.has(t.text)) return undefined
    if (prevSignificant(i)?.text === '.') return undefined
    const parts = [t.text]
    let j = skipSpace(i + 1)
    while (toks[j]?.text === '.') {
      const k = skipSpace(j + 1)
      if (toks[k]?.kind !== 'ident') return undefined
      parts.push(toks[k]!.text)
      j = skipSpace(k + 1)
    }
    return toks[j]?.text === '{' ? { name: parts.join('.'), brace: j } : undefined
  }

  /** Copies tokens from `i` until a `,` or closing bracket at depth 0 (not consumed); literals inside are rewritten. */
  const expression = (i: number): number => {
    let depth = 0
    while (i < toks.length) {
      const t = toks[i]!
      if (depth === 0 && (t.text === ',' || t.text === '}' || t.text === ']' || t.text === ')')) return i
      const lit = literalAt(i)
      if (lit !== undefined) { i = literal(i, lit); continue }
      if (t.text === '(' || t.text === '[' || t.text === '{') depth++
      else if (t.text === ')' || t.text === ']' || t.text === '}') depth--
      copy(t)
      i++
    }
    return i
  }

  /** Rewrites the literal at `i`; returns the index after its closing brace. */
  const literal = (i: number, lit: { name: string, brace: number }): number => {
    const at = toks[i]!.at
    const ctor = constructorFor(lit.name)
    if (ctor === undefined) { unknownType ??= { name: lit.name, at }; return lit.brace }
    emit(ctor.withName ? `${ctor.call}(${JSON.stringify(lit.name)}, {` : `${ctor.call}({`, at)
    let j = lit.brace + 1
    for (;;) {
      j = skipSpace(j)
      const t = toks[j]
      if (t === undefined) return j
      if (t.text === '}') { emit('})', t.at); return j + 1 }
      // `?field: <optional>`: set only when the optional has a value (cel-go's optional field syntax).
      const optional = t.text === '?' && toks[skipSpace(j + 1)]?.kind === 'ident'
      const name = optional ? toks[skipSpace(j + 1)]! : t
      if (name.kind !== 'ident') {
        // Not a field initializer: copied for the parser to refuse where the user wrote it.
        copy(t)
        return j + 1
      }
      const colon = skipSpace(toks.indexOf(name) + 1)
      if (toks[colon]?.text !== ':') { copy(t); return j + 1 }
      emit(`${JSON.stringify(name.text)}: dyn(${optional ? `${OPTIONAL_FIELD}(` : ''}`, t.at)
      j = expression(colon + 1)
      emit(optional ? '))' : ')', toks[j]?.at ?? src.length)
      if (toks[j]?.text === ',') { copy(toks[j]!); j++ }
    }
  }

  let i = 0
  while (i < toks.length) {
    const lit = literalAt(i)
    if (lit !== undefined) { i = literal(i, lit); continue }
    copy(toks[i]!)
    i++
  }
  origin.push(src.length)
  return { source: out, origin, ...(unknownType === undefined ? {} : { unknownType }) }
}
