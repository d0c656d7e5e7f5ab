// Request deadlines (the reference's WithRequestDeadline and WithTimeoutForNonLongRunningRequests):
// a request that is not long-running gets --request-timeout, or less when its `timeout` query
// parameter asks for less, and is answered 504 Timeout when it has not been answered by then.
// The handler is not stopped (as the reference's goroutine is not); what it sends later is dropped.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, badRequest } from '../../resources/status.js'
import type { RequestInfo } from '../request-info.js'

/** The reference's long-running requests: watches, proxies, and the streaming subresources. */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy'])
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward'])

export function isLongRunning (info: RequestInfo): boolean {
  return LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource))
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Go's time.ParseDuration, in milliseconds; throws Go's message. Linear in the text. */
export function parseGoDuration (text: string): number {
  const invalid = (): Error => new Error(`time: invalid duration ${JSON.stringify(text)}`)
  let s = text
  let sign = 1
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1
    s = s.slice(1)
  }
  if (s === '0') return 0
  if (s === '') throw invalid()
  let total = 0
  let i = 0
  while (i < s.length) {
    const start = i
    while (i < s.length && ((s[i]! >= '0' && s[i]! <= '9') || s[i] === '.')) i++
    const number = s.slice(start, i)
    if (number === '' || number === '.' || number.split('.').length > 2) throw invalid()
    const unitStart = i
    while (i < s.length && !(s[i]! >= '0' && s[i]! <= '9') && s[i] !== '.') i++
    const unit = s.slice(unitStart, i)
    if (unit === '') throw new Error(`time: missing unit in duration ${JSON.stringify(text)}`)
    const factor = UNITS[unit]
    if (factor === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`)
    total += Number(number) * factor
  }
  return sign * total
}

const INVALID_TIMEOUT = 'invalid timeout specified in the request URL'

/** The `timeout` query parameter, when there is one (undefined otherwise); 400 when it does not parse. */
export function requestedTimeoutMs (url: string): number | undefined {
  const q = url.indexOf('?')
  if (q === -1 || !url.includes('timeout=', q)) return undefined
  const value = new URLSearchParams(url.slice(q + 1)).get('timeout')
  if (value === null || value === '') return undefined
  try {
    return parseGoDuration(value)
  } catch (err) {
    throw badRequest(`${INVALID_TIMEOUT} - ${(err as Error).message}`)
  }
}

/** The deadline a request gets: the requested one when it is positive and shorter than the server's. */
export function deadlineMs (requested: number | undefined, serverTimeoutMs: number): number {
  return requested !== undefined && requested > 0 && requested < serverTimeoutMs ? requested : serverTimeoutMs
}

export const timeoutError = (): ApiError =>
  new ApiError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {})

/**
 * Arms the deadline of one request: at `ms` after it arrived, an unanswered request gets the 504,
 * and an answer still being written (a streamed list whose reader is slow) is cut off: its
 * connection closed (its stream reset on HTTP/2), as the reference aborts a handler that has
 * begun its answer, so that a stalled reader holds neither the items it pins nor its socket for
 * longer than the deadline. `terminated` counts either. Returns the timer (cleared when the
 * answer has gone out).
 */
export function armDeadline (request: FastifyRequest, reply: FastifyReply, ms: number, terminated: () => void): NodeJS.Timeout {
  const remaining = Math.max(0, ms - reply.elapsedTime)
  const timer = setTimeout(() => {
    if (reply.raw.writableEnded || reply.raw.destroyed) return
    if (reply.raw.headersSent) {
      request.log.info({ url: request.url, unsentBytes: reply.raw.writableLength }, 'request timed out while its answer was being written; closing it')
      terminated()
      reply.raw.destroy()
      return
    }
    if (reply.sent) return
    terminated()
    // The handler still runs and will try to answer: that late answer is dropped without a warning.
    reply.log = reply.log.child({}, { level: 'error' })
    request.log.info({ url: request.url }, 'request timed out')
    void reply.send(timeoutError())
  }, remaining)
  timer.unref()
  return timer
}
