// The reference's URL library (apiserver/pkg/cel/library/urls.go): url() takes an absolute URI or
// an absolute path, as Go's url.ParseRequestURI; the accessors answer as Go's net/url does (the
// port as written, a default one included, which WHATWG URL would drop).
import type { Environment } from '@marcbachmann/cel-js'
import { charge } from '../cost.js'
import { stringCost } from './values.js'

export class CelUrl {
  constructor (readonly text: string, readonly scheme: string, readonly host: string, readonly path: string, readonly query: string) {}
}

const URI = /^([a-zA-Z][a-zA-Z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#.*)?$/
const PATH = /^(\/[^?#]*)(?:\?([^#]*))?$/

export function parseUrl (text: string): CelUrl | undefined {
  if (/[\s\x00-\x1f\x7f]/.test(text)) return undefined
  const abs = URI.exec(text)
  if (abs !== null) {
    // ParseRequestURI refuses a relative (opaque) form without an authority or absolute path
    if (abs[2] === undefined && !abs[3].startsWith('/')) return undefined
    const authority = abs[2] ?? ''
    const host = authority.slice(authority.lastIndexOf('@') + 1)
    if (/[[\]]/.test(host) && !/^\[[0-9a-fA-F:.]+(%[^\]]*)?\](:\d*)?$/.test(host)) return undefined
    return new CelUrl(text, abs[1], host, abs[3], abs[4] ?? '')
  }
  const path = PATH.exec(text)
  if (path !== null) return new CelUrl(text, '', '', path[1], path[2] ?? '')
  return undefined
}

function hostname (u: CelUrl): string {
  if (u.host.startsWith('[')) return u.host.slice(1, u.host.indexOf(']'))
  const colon = u.host.lastIndexOf(':')
  return colon < 0 ? u.host : u.host.slice(0, colon)
}

function port (u: CelUrl): string {
  const end = u.host.startsWith('[') ? u.host.indexOf(']') + 1 : 0
  const colon = u.host.indexOf(':', end)
  return colon < 0 ? '' : u.host.slice(colon + 1)
}

function query (u: CelUrl): Map<string, string[]> {
  const out = new Map<string, string[]>()
  if (u.query === '') return out
  for (const [k, v] of new URLSearchParams(u.query)) {
    const list = out.get(k)
    if (list === undefined) out.set(k, [v])
    else list.push(v)
  }
  return out
}

export function registerUrls (env: Environment): void {
  env.registerType('kubernetes.URL', { ctor: CelUrl })
  env.registerFunction('url(string): kubernetes.URL', (s: string) => {
    charge(stringCost(s))
    const u = parseUrl(s)
    if (u === undefined) throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`)
    return u
  })
  env.registerFunction('isURL(string): bool', (s: string) => { charge(stringCost(s)); return parseUrl(s) !== undefined })
  env.registerFunction('kubernetes.URL.getScheme(): string', (u: CelUrl) => u.scheme)
  env.registerFunction('kubernetes.URL.getHost(): string', (u: CelUrl) => u.host)
  env.registerFunction('kubernetes.URL.getHostname(): string', hostname)
  env.registerFunction('kubernetes.URL.getPort(): string', port)
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (u: CelUrl) => u.path)
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: CelUrl) => { charge(stringCost(u.query)); return query(u) })
  env.registerFunction('string(kubernetes.URL): string', (u: CelUrl) => u.text)
}
