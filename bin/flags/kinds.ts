// The kinds of value a flag takes: how its text becomes the value (and which text is refused,
// with which message), and how --help names the type and prints a default, as pflag does.
import { isIP } from 'node:net'
import { featureGates, parseFeatureGateFlag } from '../../resources/feature-gates.js'
import type { NamedCertKey } from '../../server/sni-certificates.js'

export interface Kind<T> {
  /** The value's type as --help prints it (pflag's names); '' for a bool, which takes no value. */
  readonly type: string
  /**
   * The value after one occurrence of `--name=text`; `previous` is the value so far, which
   * repeatable flags add to. Throws, naming the flag, on text it refuses.
   */
  parse (name: string, text: string, previous: T): T
  /** The default as --help prints it; undefined prints none (pflag leaves out zero values). */
  show (value: T): string | undefined
}

/** "5m", "30s", "1h30m", "250ms" → milliseconds. */
export function parseDuration (text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g
  let total = 0
  let consumed = ''
  for (const m of text.matchAll(re)) {
    const n = Number(m[1])
    total += n * (m[2] === 'h' ? 3_600_000 : m[2] === 'm' ? 60_000 : m[2] === 's' ? 1000 : 1)
    consumed += m[0]
  }
  if (consumed !== text || text === '') throw new Error(`invalid duration "${text}"`)
  return total
}

/** Milliseconds as Go's time.Duration prints them, which is how the reference shows defaults: 8760h0m0s, 5m0s, 30s. */
export function formatDuration (ms: number): string {
  if (ms < 1000) return `${ms}ms`
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor(ms % 3_600_000 / 60_000)
  const s = ms % 60_000 / 1000
  if (h > 0) return `${h}h${m}m${s}s`
  if (m > 0) return `${m}m${s}s`
  return `${s}s`
}

export const commaList = (text: string): string[] => text.split(',').map(s => s.trim()).filter(s => s !== '')
const showText = (v: string | undefined): string | undefined => v === undefined || v === '' ? undefined : `"${v}"`
export const showList = (v: readonly string[] | undefined): string | undefined => v === undefined || v.length === 0 ? undefined : `[${v.join(',')}]`
const showNumber = (v: number | undefined): string | undefined => v === undefined || v === 0 ? undefined : String(v)

export const text: Kind<string> = { type: 'string', parse: (_name, t) => t, show: showText }

/** A value that has no default here: the server, or the option it feeds, decides without it. */
export function maybe<T> (kind: Kind<T>): Kind<T | undefined> {
  return {
    type: kind.type,
    parse: (name, t, previous) => kind.parse(name, t, previous as T),
    show: (v) => v === undefined ? undefined : kind.show(v)
  }
}

export const bool: Kind<boolean> = {
  type: '',
  parse (name, t) {
    if (t === 'true' || t === '') return true
    if (t === 'false') return false
    throw new Error(`invalid boolean for --${name}: "${t}"`)
  },
  show: (v) => v ? 'true' : undefined
}

export const duration: Kind<number> = { type: 'duration', parse: (_name, t) => parseDuration(t), show: (v) => v === 0 ? undefined : formatDuration(v) }

/** `a,b,c`: each occurrence replaces the list. */
export const strings: Kind<string[]> = { type: 'strings', parse: (_name, t) => commaList(t), show: showList }

/** Each occurrence adds one value, commas and all. */
export const stringArray: Kind<string[]> = { type: 'stringArray', parse: (_name, t, previous) => [...previous, t], show: showList }

/** `k=v,k2=v2`, each occurrence adding to the list, kept as written (the option parses them). */
export const keyValueList: Kind<string[]> = { type: 'mapStringString', parse: (_name, t, previous) => [...previous, ...commaList(t)], show: showList }

/**
 * `k=v,k2=v2`, each occurrence adding to the map; `want` is the form named when a pair is
 * refused, `valueForm` what a value must look like.
 */
export function keyValues (want: string, valueForm = /^/): Kind<Record<string, string>> {
  return {
    type: 'mapStringString',
    parse (name, t, previous) {
      const map = { ...previous }
      for (const pair of commaList(t)) {
        const eq = pair.indexOf('=')
        if (eq <= 0 || !valueForm.test(pair.slice(eq + 1))) throw new Error(`invalid --${name} "${pair}": want ${want}`)
        map[pair.slice(0, eq)] = pair.slice(eq + 1)
      }
      return map
    },
    show: (v) => Object.keys(v).length === 0 ? undefined : `[${Object.entries(v).map(([k, x]) => `${k}=${x}`).join(',')}]`
  }
}

/**
 * `cert,key` or `cert,key:name1,name2`, one pair per occurrence (repeatable), as the reference's
 * --tls-sni-cert-key takes it.
 */
export const namedCertKeys: Kind<NamedCertKey[]> = {
  type: 'namedCertKey',
  parse (name, t, previous) {
    const colon = t.indexOf(':')
    const pair = (colon < 0 ? t : t.slice(0, colon)).trim()
    let names: string[] = []
    if (colon >= 0) {
      const list = t.slice(colon + 1).trim()
      if (list === '') throw new Error(`invalid --${name} "${t}": empty names list is not allowed`)
      names = list.split(',').map(n => n.trim())
    }
    const files = pair.split(',')
    if (files.length !== 2) throw new Error(`invalid --${name} "${t}": expected comma separated certificate and key file paths`)
    return [...previous, { certFile: files[0]!.trim(), keyFile: files[1]!.trim(), names }]
  },
  show: (v) => v.length === 0 ? undefined : `[${v.map(p => `${p.certFile},${p.keyFile}${p.names.length > 0 ? `:${p.names.join(',')}` : ''}`).join(';')}]`
}

/** One of a few words; `wanted` ends the message for any other. */
export function oneOf<const W extends string> (words: readonly W[], wanted: string): Kind<W> {
  return {
    type: 'string',
    parse (name, t) {
      if (!(words as readonly string[]).includes(t)) throw new Error(`invalid --${name} "${t}": ${wanted}`)
      return t as W
    },
    show: showText
  }
}

/** A whole number that `accepts`; `why` ends the message for any other. */
function wholeNumber (accepts: (n: number, t: string) => boolean, why: string): Kind<number> {
  return {
    type: 'int',
    parse (name, t) {
      const n = Number(t)
      if (!accepts(n, t)) throw new Error(`invalid --${name} "${t}"${why}`)
      return n
    },
    show: showNumber
  }
}

/** 0 or more: the audit log's limits. */
export const count = wholeNumber((n, t) => t !== '' && Number.isInteger(n) && n >= 0, ': want a whole number, 0 or more')
/** As the toleration flags take them. */
export const seconds = wholeNumber((n, t) => t !== '' && Number.isSafeInteger(n) && n >= 0, ': a whole number of seconds is needed')
export const port = wholeNumber((n) => Number.isInteger(n) && n >= 0 && n <= 65535, '')

/** Any text, printed as pflag's `ip` type (the listener checks it). */
export const ip: Kind<string> = { ...text, type: 'ip', show: (v) => v === '' ? undefined : v }

/** An address clients can dial: an IP, never a wildcard. */
export const reachableIP: Kind<string> = {
  type: 'ip',
  parse (name, t) {
    if (isIP(t) === 0 || t === '0.0.0.0' || t === '::') throw new Error(`invalid --${name} "${t}": an IP address clients can reach`)
    return t
  },
  show: (v) => v
}

/** `Name=true,Other=false`: each occurrence adds to the map, and a bad one stops start-up, as the reference flag. */
export const gates: Kind<Record<string, boolean>> = {
  type: 'colonSeparatedMultimapStringString',
  parse (name, t, previous) {
    try {
      const set = { ...previous, ...parseFeatureGateFlag([t]) }
      featureGates(set)
      return set
    } catch (err) {
      throw new Error(`invalid argument "${t}" for "--${name}" flag: ${(err as Error).message}`)
    }
  },
  show: () => undefined
}
