// How many seats a request takes (the reference's work estimator): a list one seat per hundred
// objects it will go through, counted from the kind's cache, between one seat and the level's
// most (15% of its nominal seats, at most ten); a watch one seat, or a list's when it starts
// with the initial events (sendInitialEvents=true); a write one seat while it runs, then, when ten
// or more watches will be sent its event, one seat per ten of them for 5 ms more (the reference's
// mutating work estimator: the events' fan-out is work the write causes after it is answered);
// everything else one seat.
import type { RequestInfo } from '../request-info.js'

const OBJECTS_PER_SEAT = 100
const MIN_SEATS = 1
const MAX_SEATS = 10
const LEVEL_MAX_SEATS_FRACTION = 0.15

/** The most seats one request of a level with `nominal` seats may be charged. */
export function maxSeatsOf (nominal: number): number {
  const cap = Math.ceil(nominal * LEVEL_MAX_SEATS_FRACTION)
  return cap <= 0 ? MAX_SEATS : Math.min(MAX_SEATS, cap)
}

/**
 * `url` is the request's URL (its query read only for lists and watches); `stored` is how many
 * objects of the kind the server holds (undefined when it does not serve the kind).
 */
export function estimateSeats (info: RequestInfo, url: string, stored: number | undefined, maxSeats: number): number {
  if (info.verb !== 'list' && info.verb !== 'watch') return MIN_SEATS
  if (stored === undefined) return MIN_SEATS
  const q = url.indexOf('?')
  const query = new URLSearchParams(q === -1 ? '' : url.slice(q + 1))
  if (info.verb === 'watch' && query.get('sendInitialEvents') !== 'true') return MIN_SEATS
  const limitText = query.get('limit')
  const limitValue = limitText === null ? 0 : Number(limitText)
  const limit = Number.isInteger(limitValue) && limitValue > 0 && limitValue < stored ? limitValue : stored
  // A continued page or an exact resourceVersion is read from the database, the rest from the cache.
  const fromStorage = info.verb === 'list' && (query.has('continue') || query.get('resourceVersionMatch') === 'Exact')
  let objects: number
  if (!fromStorage) objects = stored
  else if (query.has('labelSelector') || query.has('fieldSelector')) objects = stored + limit
  else objects = 2 * limit
  const seats = Math.ceil(objects / OBJECTS_PER_SEAT)
  return Math.max(MIN_SEATS, Math.min(seats, maxSeats))
}

const WATCHES_PER_SEAT = 10
const EVENT_ADDITIONAL_MS = 5
const MUTATING_VERBS = new Set(['create', 'update', 'patch', 'delete'])

/** What a request holds: `seats` while it runs, then `finalSeats` for `additionalMs` after it is answered. */
export interface WorkEstimate { seats: number, finalSeats: number, additionalMs: number }

/** Whether a request is a write whose event watchers are sent (a service account token request makes none). */
export const sendsWatchEvents = (info: RequestInfo): boolean =>
  MUTATING_VERBS.has(info.verb) && !(info.resource === 'serviceaccounts' && info.subresource === 'token')

/** A write's estimate from the number of watches interested in it (0 for requests that are not writes). */
export function estimateMutating (info: RequestInfo, watches: number, maxSeats: number): WorkEstimate {
  if (!sendsWatchEvents(info) || watches < WATCHES_PER_SEAT) return { seats: MIN_SEATS, finalSeats: 0, additionalMs: 0 }
  return { seats: MIN_SEATS, finalSeats: Math.min(Math.ceil(watches / WATCHES_PER_SEAT), maxSeats), additionalMs: EVENT_ADDITIONAL_MS }
}
