// Go's net/url.Parse, as far as the reference server's validation reads a URL (scheme, host,
// user information, query, fragment) and with its error messages. WHATWG's URL parser, which
// Node has, reads other URLs: it finds the host "x" in `https:///x`, where Go finds none.
import { goQuote } from './go-quote.js'

export interface GoUrl {
  scheme: string
  host: string
  /** The user information as written (url.Userinfo's String() for the usual unescaped forms). */
  user?: string
  rawQuery: string
  fragment: string
}

export type GoUrlResult = { url: GoUrl, error?: undefined } | { url?: undefined, error: string }

class UrlError extends Error {}

const isHex = (c: string): boolean => /^[0-9a-fA-F]$/.test(c)
const isAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c)

// Characters a host may hold unescaped (shouldEscape in encodeHost mode).
const HOST_EXTRA = new Set(['-', '_', '.', '~', '!', '$', '&', "'", '(', ')', '*', '+', ',', ';', '=', ':', '[', ']', '<', '>', '"'])
const USERINFO_EXTRA = new Set(['-', '.', '_', ':', '~', '!', '$', '&', "'", '(', ')', '*', '+', ',', ';', '=', '%', '@'])

type Mode = 'host' | 'other'

/** url.unescape: checks %-escapes (and, in a host, which characters may stand unescaped). */
function unescape (s: string, mode: Mode): string {
  const bytes: number[] = []
  for (let i = 0; i < s.length;) {
    const c = s[i]!
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]!) || !isHex(s[i + 2]!)) throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`)
      // In a host, %-escapes stand only for non-ASCII bytes, and %25 for the zone's percent sign.
      if (mode === 'host' && parseInt(s[i + 1]!, 16) < 8 && s.slice(i, i + 3) !== '%25') throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`)
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16))
      i += 3
      continue
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && !isAlnum(c) && !HOST_EXTRA.has(c)) throw new UrlError(`invalid character ${goQuote(c)} in host name`)
    for (const b of Buffer.from(c, 'utf8')) bytes.push(b)
    i++
  }
  return Buffer.from(bytes).toString('utf8')
}

const validOptionalPort = (port: string): boolean => port === '' || /^:[0-9]*$/.test(port)

function parseHost (host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']')
    if (i < 0) throw new UrlError("missing ']' in host")
    const colonPort = host.slice(i + 1)
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(colonPort)} after host`)
  } else {
    const i = host.lastIndexOf(':')
    if (i !== -1 && !validOptionalPort(host.slice(i))) throw new UrlError(`invalid port ${goQuote(host.slice(i))} after host`)
  }
  return unescape(host, 'host')
}

function parseAuthority (authority: string): { user?: string, host: string } {
  const at = authority.lastIndexOf('@')
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1))
  if (at < 0) return { host }
  const user = authority.slice(0, at)
  if ([...user].some(c => !isAlnum(c) && !USERINFO_EXTRA.has(c))) throw new UrlError('net/url: invalid userinfo')
  for (const part of user.split(':').slice(0, 2)) unescape(part, 'other')
  return { user, host }
}

function getScheme (raw: string): { scheme: string, rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if (/[A-Za-z]/.test(c)) continue
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw }
      continue
    }
    if (c === ':') {
      if (i === 0) throw new UrlError('missing protocol scheme')
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) }
    }
    return { scheme: '', rest: raw }
  }
  return { scheme: '', rest: raw }
}

function parse (raw: string): GoUrl {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlError('net/url: invalid control character in URL')
  const url: GoUrl = { scheme: '', host: '', rawQuery: '', fragment: '' }
  if (raw === '*') return url
  const { scheme, rest: afterScheme } = getScheme(raw)
  url.scheme = scheme.toLowerCase()
  let rest = afterScheme
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1)
  else {
    const q = rest.indexOf('?')
    if (q >= 0) { url.rawQuery = rest.slice(q + 1); rest = rest.slice(0, q) }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') return url // opaque
    if ((rest.split('/')[0] ?? '').includes(':')) throw new UrlError('first path segment in URL cannot contain colon')
  }
  if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2)
    const slash = authority.indexOf('/')
    rest = slash >= 0 ? authority.slice(slash) : ''
    if (slash >= 0) authority = authority.slice(0, slash)
    const { user, host } = parseAuthority(authority)
    url.host = host
    if (user !== undefined) url.user = user
  }
  unescape(rest, 'other')
  return url
}

/** url.Parse: the parts, or the error's text (`parse "…": …`) as the reference server prints it. */
export function parseGoUrl (raw: string): GoUrlResult {
  const hash = raw.indexOf('#')
  const beforeFragment = hash < 0 ? raw : raw.slice(0, hash)
  try {
    const url = parse(beforeFragment)
    if (hash >= 0) {
      try {
        url.fragment = unescape(raw.slice(hash + 1), 'other')
      } catch (err) {
        if (err instanceof UrlError) return { error: `parse ${goQuote(raw)}: ${err.message}` }
        throw err
      }
    }
    return { url }
  } catch (err) {
    if (err instanceof UrlError) return { error: `parse ${goQuote(beforeFragment)}: ${err.message}` }
    throw err
  }
}
