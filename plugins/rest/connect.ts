// The stream subresources (resources/define.ts ConnectDefinition): pods/exec, attach and
// portforward switch protocols to the node agent (streams/upgrade.ts); pods/log reads the
// agent's answer; nodes/, pods/ and services/proxy pass any request through. Their options come
// from the query, admission sees the upgrade and proxy ones with operation CONNECT, and the kind
// locates where each goes.
import { ApiError, badRequest, invalid, type StatusReason } from '../../resources/status.js'
import type { AnyObject, ConnectDefinition, StreamLocation } from '../../resources/define.js'
import { DialError, locationUrl, unreachableService, type NodeAgentOptions } from '../streams/backend.js'
import { forward, passedHeaders, returnedHeaders } from '../streams/forward.js'
import { carryUpgrade, isUpgradeRequest } from '../streams/upgrade.js'
import type { Query } from './options.js'
import { callerOf, relay, type RestCall } from './rest-call.js'

export { isUpgradeRequest } from '../streams/upgrade.js'

const INT32_MAX = 2147483647
const INT_PATTERN = /^[+-]?\d+$/

const syntaxError = (fn: string, v: string): ApiError => badRequest(`${fn}: parsing ${JSON.stringify(v)}: invalid syntax`)

/** An RFC 3339 time as Go's time.Parse takes it: the error names the layout, as Go's does. */
function parseTime (v: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(v)
  const ms = m === null ? NaN : Date.parse(v.toUpperCase())
  if (Number.isNaN(ms)) throw badRequest(`parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(v)} as "2006"`)
  // Query times carry seconds (metav1.Time): the fraction is dropped.
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

/** The options object a request's query describes (PodExecOptions from `?command=ls&stdout=true`). */
export function connectOptions (def: ConnectDefinition, query: Query): AnyObject {
  const options: AnyObject = { kind: def.optionsKind, apiVersion: 'v1' }
  for (const [name, type] of Object.entries(def.parameters)) {
    const raw = query[name]
    if (raw === undefined) continue
    const values = Array.isArray(raw) ? raw : [raw]
    if (values.length === 0) continue
    const first = values[0]!
    switch (type) {
      case 'string': options[name] = first; break
      case 'strings': options[name] = values; break
      case 'boolean':
        if (first !== '0' && first.toLowerCase() !== 'false') options[name] = true
        break
      case 'integer': {
        const n = Number(first)
        if (!INT_PATTERN.test(first) || !Number.isSafeInteger(n)) throw syntaxError('strconv.ParseInt', first)
        options[name] = n
        break
      }
      case 'time':
        if (first !== '' && first !== 'null' && first !== '""') options[name] = parseTime(first)
        break
      case 'integers':
        options[name] = values.flatMap(v => v.split(',')).map(v => {
          const n = Number(v)
          if (!INT_PATTERN.test(v.trim()) || !Number.isSafeInteger(n) || Math.abs(n) > INT32_MAX) throw syntaxError('strconv.ParseInt', v)
          return n
        })
        break
    }
  }
  return options
}

/**
 * The path past `<name>/proxy` (`/a/b`, with the request's trailing slash): what PodProxyOptions
 * names; '' when the request stops at the subresource.
 */
export function proxyPath (call: RestCall): string {
  const rest = call.info.parts.slice(3).join('/')
  const trailing = call.info.path.endsWith('/')
  if (rest === '') return trailing ? '/' : ''
  return `/${rest}${trailing ? '/' : ''}`
}

/** The server's --kubelet-* settings, as the streams plugin decorated them. */
const agentOf = (call: RestCall): NodeAgentOptions => call.request.server.nodeAgent

/** A stream subresource: the handler for its carriage. */
export async function serveConnect (call: RestCall): Promise<unknown> {
  const def = call.served.subresources[call.subresource]!.connect!
  switch (def.carries ?? 'upgrade') {
    case 'read': return await serveRead(call, def)
    case 'proxy': return await serveProxy(call, def)
    default: return await serveUpgrade(call, def)
  }
}

async function locate (call: RestCall, options: AnyObject, admit: boolean): Promise<StreamLocation | undefined> {
  const c = callerOf(call)
  const location = await call.store.connect(call.namespace, call.info.name, call.subresource, options, c, admit, agentOf(call).preferredAddressTypes)
  relay(call.reply, c)
  return location
}

/** exec, attach, portforward: a request that is not an upgrade is refused, as the reference handler refuses it. */
async function serveUpgrade (call: RestCall, def: ConnectDefinition): Promise<unknown> {
  const options = connectOptions(def, call.query)
  const location = await locate(call, options, true)
  if (!isUpgradeRequest(call.request.headers)) throw badRequest('Upgrade request required')
  if (location === undefined) throw badRequest('Upgrade request required')
  await carryUpgrade(call.request, call.reply, location, agentOf(call))
  return call.reply
}

/** The answer to a backend's status outside 2xx (the reference's GenericHttpResponseChecker). */
function backendRefusal (code: number, resource: string, name: string, body: string): ApiError {
  const known: Record<number, [string, string]> = {
    400: ['BadRequest', 'the server rejected our request for an unknown reason'],
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', body],
    404: ['NotFound', 'the server could not find the requested resource'],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    406: ['NotAcceptable', body],
    409: ['Conflict', 'the server reported a conflict'],
    415: ['UnsupportedMediaType', body],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request']
  }
  const [reason, message] = known[code] ?? (code >= 500
    ? ['InternalError', `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`]
    : ['', `the server responded with the status code ${code} but did not return more information`])
  return new ApiError(code, reason as StatusReason, `${message} ( ${resource} ${name})`, { name, kind: resource, causes: [{ reason: 'UnexpectedServerResponse', message: body }] })
}

const MAX_REFUSAL_BYTES = 50000

/** pods/log: the agent's answer streamed back as text; the client leaving ends the agent's request. */
async function serveRead (call: RestCall, def: ConnectDefinition): Promise<unknown> {
  const options = connectOptions(def, call.query)
  const errors = def.validate?.(options) ?? []
  if (errors.length > 0) throw invalid({ group: '', kind: def.optionsKind }, call.info.name, errors)
  const location = await locate(call, options, false)
  const reply = call.reply
  if (location === undefined) return await reply.code(200).type('text/plain').send('')
  // The response closing (the client went away, or the log was sent) ends the agent's request.
  const aborted = new AbortController()
  reply.raw.once('close', () => { aborted.abort() })
  let response
  try {
    response = await forward(location, agentOf(call), { method: 'GET', target: `${location.path}${location.query === undefined || location.query === '' ? '' : `?${location.query}`}`, headers: {} }, aborted.signal)
  } catch (err) {
    if (err instanceof DialError) throw new ApiError(500, '', `Get ${JSON.stringify(locationUrl(location))}: ${err.message}`)
    throw new ApiError(500, '', `Get ${JSON.stringify(locationUrl(location))}: ${(err as Error).message}`)
  }
  const status = response.statusCode ?? 500
  if (status < 200 || status > 206) {
    let body = ''
    for await (const chunk of response) {
      body += String(chunk)
      if (body.length >= MAX_REFUSAL_BYTES) break
    }
    response.destroy()
    throw backendRefusal(status, `${call.store.gr.resource}/${call.subresource}`, call.info.name, body.slice(0, MAX_REFUSAL_BYTES))
  }
  response.once('error', () => { response.destroy() })
  return await reply.code(200).type('text/plain').send(response)
}

/**
 * The proxy subresources: a request for `<name>/proxy` alone by GET or HEAD is redirected to
 * `<name>/proxy/` (the reference's proxyRedirectsforRootPath); upgrades are carried as exec's.
 */
async function serveProxy (call: RestCall, def: ConnectDefinition): Promise<unknown> {
  const { request, reply } = call
  const path = proxyPath(call)
  const options = { ...connectOptions(def, call.query), path }
  const location = await locate(call, options, true)
  if (location === undefined) throw badRequest('no location')
  if (isUpgradeRequest(request.headers)) {
    await carryUpgrade(request, reply, location, agentOf(call))
    return reply
  }
  const rawUrl = request.raw.url ?? ''
  const q = rawUrl.indexOf('?')
  const query = q === -1 ? '' : rawUrl.slice(q + 1)
  if (location.path === '' && (request.method === 'GET' || request.method === 'HEAD')) {
    return await reply.code(301).header('location', `${call.info.path}/${query === '' ? '' : `?${query}`}`).send()
  }
  const aborted = new AbortController()
  reply.raw.once('close', () => { if (!reply.raw.writableFinished) aborted.abort() })
  let response
  try {
    const body = Buffer.isBuffer(request.body) && request.body.length > 0 ? request.body : undefined
    response = await forward(location, agentOf(call), {
      method: request.method,
      target: `${location.path === '' ? '/' : location.path}${query === '' ? '' : `?${query}`}`,
      headers: passedHeaders(request.headers, request.raw.socket?.remoteAddress),
      ...(body === undefined ? {} : { body })
    }, aborted.signal)
  } catch (err) {
    throw unreachableService(err)
  }
  void reply.code(response.statusCode ?? 502).headers(returnedHeaders(response.headers))
  response.once('error', () => { response.destroy() })
  return await reply.send(response)
}
