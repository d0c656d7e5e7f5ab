// How many seats a request takes (the reference's work estimator): a list one seat per hundred
// objects it will go through, counted from the kind's cache, between one seat and the level's
// most (15% of its nominal seats, at most ten); a watch one seat, or a list's when it starts
// with the initial events (sendInitialEvents=true); everything else one seat.
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
