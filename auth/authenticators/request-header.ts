// The authenticating proxy: a front proxy that presents a client certificate issued by the
// request-header CA (and, when configured, with an allowed common name) says who the user is
// in request headers. The same headers from any other client are ignored.
import fp from 'fastify-plugin'
import { X509Certificate } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { UserInfo } from '../../resources/user-info.js'
import { tlsConnectionOf } from '../tls-connection.js'

export interface RequestHeaderOptions {
  /** --requestheader-client-ca-file contents (PEM bundle). */
  clientCAPem: string
  /** --requestheader-allowed-names; empty allows any name the CA issued. */
  allowedNames?: string[]
  /** --requestheader-username-headers, in order. */
  usernameHeaders: string[]
  /** --requestheader-uid-headers */
  uidHeaders?: string[]
  /** --requestheader-group-headers */
  groupHeaders?: string[]
  /** --requestheader-extra-headers-prefix */
  extraHeadersPrefix?: string[]
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

function values (request: FastifyRequest, name: string): string[] {
  const distinct = request.raw.headersDistinct?.[name]
  if (distinct !== undefined) return distinct
  const v = request.headers[name]
  return v === undefined ? [] : Array.isArray(v) ? v : [v]
}

const unescape = (s: string): string => { try { return decodeURIComponent(s) } catch { return s } }

export default fp(async function requestHeader (fastify: FastifyInstance, opts: RequestHeaderOptions) {
  const cas = (opts.clientCAPem.match(PEM_CERT) ?? []).map(pem => new X509Certificate(pem))
  if (cas.length === 0) throw new Error('--requestheader-client-ca-file holds no certificate')
  if (opts.usernameHeaders.length === 0) throw new Error('--requestheader-username-headers must name at least one header')
  const lower = (names?: string[]): string[] => (names ?? []).map(n => n.toLowerCase())
  const usernameHeaders = lower(opts.usernameHeaders)
  const uidHeaders = lower(opts.uidHeaders)
  const groupHeaders = lower(opts.groupHeaders)
  const extraPrefixes = lower(opts.extraHeadersPrefix)
  const allowedNames = opts.allowedNames ?? []

  /** Whether the peer certificate was issued by a request-header CA, is current, and has an allowed name. */
  function fromProxy (request: FastifyRequest): boolean {
    const leaf = tlsConnectionOf(request.raw)?.getPeerX509Certificate()
    if (leaf === undefined) return false
    const now = Date.now()
    if (now < Date.parse(leaf.validFrom) || now > Date.parse(leaf.validTo)) return false
    const issued = cas.some(ca => leaf.checkIssued(ca) && leaf.verify(ca.publicKey))
    if (!issued) return false
    if (allowedNames.length === 0) return true
    const cn = /(?:^|\n)CN=([^\n]*)/.exec(leaf.subject)?.[1]
    return cn !== undefined && allowedNames.includes(cn)
  }

  fastify.authn.add('request-header', (request) => {
    const username = usernameHeaders.map(h => values(request, h).find(v => v !== '')).find(v => v !== undefined)
    if (username === undefined) return undefined
    if (!fromProxy(request)) {
      request.log.debug('request-header identity ignored: the client is not the authenticating proxy')
      return undefined
    }
    const user: UserInfo = { username, groups: groupHeaders.flatMap(h => values(request, h)) }
    const uid = uidHeaders.map(h => values(request, h).find(v => v !== '')).find(v => v !== undefined)
    if (uid !== undefined) user.uid = uid
    // A Map: extra keys are the proxy's (`__proto__` included) and must stay data.
    const extra = new Map<string, string[]>()
    for (const name of Object.keys(request.headers)) {
      const prefix = extraPrefixes.find(p => name.startsWith(p))
      if (prefix === undefined) continue
      const key = unescape(name.slice(prefix.length)).toLowerCase()
      extra.set(key, [...(extra.get(key) ?? []), ...values(request, name)])
    }
    if (extra.size > 0) user.extra = Object.fromEntries(extra)
    // What the proxy asserted is consumed here; nothing after authentication should read it again.
    for (const name of Object.keys(request.headers)) {
      if (usernameHeaders.includes(name) || uidHeaders.includes(name) || groupHeaders.includes(name) || extraPrefixes.some(p => name.startsWith(p))) delete request.headers[name]
    }
    return user
  })
}, { name: 'authn:request-header', dependencies: ['authn'] })
