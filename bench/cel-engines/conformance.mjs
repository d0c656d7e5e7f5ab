// Compares the conformance of three CEL engines on cel-spec tests; run in a scratch directory
// with the three engines and @bufbuild/cel-spec installed (see machinery/cel/README.md).
// Runs a subset of the cel-spec conformance tests (no proto messages, containers or type envs)
// against three CEL engines.
import { tests } from '@bufbuild/cel-spec/testdata/conformance.js'
import * as buf from '@bufbuild/cel'
import { strings as bufStrings } from '@bufbuild/cel/ext'
import * as marc from '@marcbachmann/cel-js'
import * as celjs from 'cel-js'

const SUITES = (process.env.SUITES ?? 'basic,comparisons,conversions,fp_math,integer_math,lists,logic,macros,macros2,parse,string,string_ext,fields,timestamps,plumbing,dynamic,type_deductions,optionals,math_ext').split(',')
function plain (v) {
  if (v == null) return undefined
  if ('int64Value' in v) return { i: String(v.int64Value) }
  if ('uint64Value' in v) return { i: String(v.uint64Value) }
  if ('doubleValue' in v) return { d: Number(v.doubleValue) }
  if ('stringValue' in v) return v.stringValue
  if ('boolValue' in v) return v.boolValue
  if ('nullValue' in v) return null
  if ('bytesValue' in v) return { b: Buffer.from(v.bytesValue, 'base64').toString('hex') }
  if ('listValue' in v) return (v.listValue.values ?? []).map(plain)
  if ('mapValue' in v) return Object.fromEntries((v.mapValue.entries ?? []).map(e => [JSON.stringify(plain(e.key)), plain(e.value)]).sort())
  return Symbol('unsupported')
}
function norm (x) {
  if (x === null || x === undefined) return null
  if (typeof x === 'bigint') return { i: String(x) }
  if (typeof x === 'number') return Number.isInteger(x) && !Object.is(x, -0) ? { n: x } : { d: x }
  if (typeof x === 'string' || typeof x === 'boolean') return x
  if (x instanceof Uint8Array) return { b: Buffer.from(x).toString('hex') }
  if (buf.isCelUint?.(x)) return { i: String(x.value) }
  if (buf.isCelList?.(x)) return [...x].map(norm)
  if (buf.isCelMap?.(x)) return Object.fromEntries([...x.entries()].map(([k, v]) => [JSON.stringify(norm(k)), norm(v)]).sort())
  if (Array.isArray(x)) return x.map(norm)
  if (x instanceof Map) return Object.fromEntries([...x.entries()].map(([k, v]) => [JSON.stringify(norm(k)), norm(v)]).sort())
  if (x.constructor === Object) return Object.fromEntries(Object.entries(x).map(([k, v]) => [JSON.stringify(k), norm(v)]).sort())
  if (typeof x.value === 'bigint') return { i: String(x.value) }
  return Symbol('other')
}
// doubles written as whole numbers compare equal to ints only for engines without an int type (cel-js)
function same (want, got, loose) {
  const w = JSON.stringify(want, (k, v) => v), g = JSON.stringify(got)
  if (w === g) return true
  if (!loose) {
    // {n: 3} from a double result vs {d: 3}
    return JSON.stringify(want).replace(/"d":/g, '"n":') === g
  }
  const flat = s => s.replace(/\{"(i|d|n)":"?(-?[\d.e+]+)"?\}/g, '$2')
  return flat(w) === flat(g)
}
function binding (b) {
  const out = {}
  for (const [k, v] of Object.entries(b ?? {})) {
    const p = plain(v.value)
    if (typeof p === 'symbol' || p === undefined) return undefined
    out[k] = fromPlain(p)
  }
  return out
}
function fromPlain (p) {
  if (p && typeof p === 'object' && 'i' in p) return BigInt(p.i)
  if (p && typeof p === 'object' && 'd' in p) return p.d
  if (Array.isArray(p)) return p.map(fromPlain)
  return p
}
const engines = {
  '@bufbuild/cel': (e, b) => { const r = buf.run(e, b, { funcs: bufStrings }); if (buf.isCelError(r)) throw new Error(r.message); return r },
  '@marcbachmann/cel-js': (e, b) => marc.evaluate(e, b),
  'cel-js': (e, b) => celjs.evaluate(e, b)
}
const cases = []
function walk (s, path) {
  for (const x of s.suites ?? []) walk(x, path ? path + '/' + x.name : x.name)
  for (const t of s.tests ?? []) {
    const o = t.original
    if (o.container || o.typeEnv || o.disableMacros) continue
    const bind = binding(o.bindings); if (bind === undefined) continue
    if (o.value !== undefined) { const w = plain(o.value); if (typeof w === 'symbol' || JSON.stringify(w)?.includes('unsupported')) continue; if (JSON.stringify(o.value).includes('objectValue') || JSON.stringify(o.value).includes('typeValue') || JSON.stringify(o.value).includes('enumValue')) continue; cases.push({ path, name: o.name, expr: o.expr, bind, want: w }) }
    else if (o.evalError !== undefined) cases.push({ path, name: o.name, expr: o.expr, bind, error: true })
    else if (!o.value && !o.evalError && !o.anyEvalErrors && !o.unknown) cases.push({ path, name: o.name, expr: o.expr, bind, want: true })
  }
}
for (const s of tests.suites) if (SUITES.includes(s.name)) walk(s, s.name)
const res = {}
for (const [name, run] of Object.entries(engines)) {
  const bySuite = {}
  for (const c of cases) {
    const top = c.path.split('/')[0]
    bySuite[top] ??= [0, 0]
    bySuite[top][1]++
    let ok
    try { const r = run(c.expr, c.bind); ok = !c.error && same(c.want, norm(r), name === 'cel-js') } catch (e) { ok = !!c.error }
    if (ok) bySuite[top][0]++
    else if (process.env.SHOW === name) console.log('FAIL', c.path, c.name, c.expr)
  }
  res[name] = bySuite
}
const suites = Object.keys(res['@bufbuild/cel'])
console.log('| suite | cases | ' + Object.keys(engines).join(' | ') + ' |')
console.log('|---|---|' + Object.keys(engines).map(() => '---').join('|') + '|')
const tot = Object.keys(engines).map(() => 0); let n = 0
for (const s of suites) { const row = Object.keys(engines).map((e, i) => { tot[i] += res[e][s][0]; return res[e][s][0] }); n += res['@bufbuild/cel'][s][1]; console.log(`| ${s} | ${res['@bufbuild/cel'][s][1]} | ${row.join(' | ')} |`) }
console.log(`| total | ${n} | ${tot.map(t => `${t} (${(100 * t / n).toFixed(1)}%)`).join(' | ')} |`)
