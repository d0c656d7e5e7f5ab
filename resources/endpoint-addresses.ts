// The address rules Endpoints and EndpointSlices share (the reference's ValidateEndpointIP and
// the IP checks before it), and the `+ N more...` lists their table columns print.
import { ipToBigInt } from './value-ranges.js'
import type { FieldError } from './status.js'

/** IsValidIPForLegacyField's answer to text that is no IP. */
export const INVALID_IP_DETAIL = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'

/** An address as Go's net.IP sees it: IPv4-mapped IPv6 addresses are IPv4. */
function parsed (ip: string): { v4: bigint } | { v6: bigint } | undefined {
  const n = ipToBigInt(ip)
  if (n === undefined) return undefined
  if (n.family === 'IPv4') return { v4: n.value }
  return (n.value >> 32n) === 0xffffn ? { v4: n.value & 0xffffffffn } : { v6: n.value }
}

/**
 * The reference's ValidateEndpointIP: addresses that make no sense as a destination (unspecified,
 * loopback, link-local unicast and multicast) are refused as endpoints.
 */
export function validateEndpointIP (ip: string, field: string): FieldError[] {
  const p = parsed(ip)
  if (p === undefined) return [{ type: 'Invalid', field, value: ip, detail: 'must be a valid IP address' }]
  const invalid = (detail: string): FieldError => ({ type: 'Invalid', field, value: ip, detail })
  const errors: FieldError[] = []
  const unspecified = 'v4' in p ? p.v4 === 0n : p.v6 === 0n
  const loopback = 'v4' in p ? (p.v4 >> 24n) === 127n : p.v6 === 1n
  const linkLocalUnicast = 'v4' in p ? (p.v4 >> 16n) === 0xa9fen : (p.v6 >> 118n) === 0x3fan
  const linkLocalMulticast = 'v4' in p ? (p.v4 >> 8n) === 0xe00000n : (p.v6 >> 112n & 0xff0fn) === 0xff02n
  if (unspecified) errors.push(invalid(`may not be unspecified (${ip})`))
  if (loopback) errors.push(invalid('may not be in the loopback range (127.0.0.0/8, ::1/128)'))
  if (linkLocalUnicast) errors.push(invalid('may not be in the link-local range (169.254.0.0/16, fe80::/10)'))
  if (linkLocalMulticast) errors.push(invalid('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'))
  return errors
}

/** Whether an address is one of an address type's: IPv4-mapped IPv6 text counts as IPv4, as Go's To4 does. */
export const isIPv4Address = (ip: string): boolean => { const p = parsed(ip); return p !== undefined && 'v4' in p }
export const isIPv6Address = (ip: string): boolean => { const p = parsed(ip); return p !== undefined && 'v6' in p }

/** kubectl's list of at most three, then how many more there are. */
export function listWithMore (items: string[], empty: string): string {
  const max = 3
  const shown = items.slice(0, max).join(',')
  if (items.length > max) return `${shown} + ${items.length - max} more...`
  return shown === '' ? empty : shown
}
