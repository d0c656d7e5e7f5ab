// Ranges of values objects claim exclusively (a Service's cluster IPs, its node ports): IP
// addresses as the reference server parses and prints them, CIDR blocks, port ranges. Offsets
// are bigints, since an IPv6 block can hold more addresses than a double counts exactly.
import { isIP } from 'node:net'

export type IPFamily = 'IPv4' | 'IPv6'

/** A contiguous range of values, each at an offset in [0, size). */
export interface ValueRange {
  /** As the user wrote it (`10.96.0.0/12`, `30000-32767`): errors name it so. */
  readonly text: string
  readonly size: bigint
  /**
   * Offsets below this are the static band: allocation without a request takes them only when
   * the rest is full, so users who pick values there rarely collide with allocated ones.
   */
  readonly staticBand: bigint
  valueAt (offset: bigint): string
  /** The offset of a value, or undefined when the value is malformed or outside. */
  offsetOf (value: string): bigint | undefined
}

export const familyOf = (ip: string): IPFamily | undefined => {
  const v = isIP(ip)
  return v === 4 ? 'IPv4' : v === 6 ? 'IPv6' : undefined
}

/** An address as a number; undefined when `ip` is not one. */
export function ipToBigInt (ip: string): { value: bigint, family: IPFamily } | undefined {
  const family = familyOf(ip)
  if (family === 'IPv4') {
    const parts = ip.split('.').map(Number)
    return { value: parts.reduce((n, p) => (n << 8n) | BigInt(p), 0n), family }
  }
  if (family !== 'IPv6') return undefined
  let text = ip
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (v4 !== null) {
    const n = ipToBigInt(v4[1]!)!.value
    text = `${text.slice(0, -v4[1]!.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? text.split('::') as [string, string] : [text, undefined]
  const headGroups = head === '' ? [] : head.split(':')
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':')
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
  return { value: groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n), family }
}

/** The canonical text of an address (IPv6 compressed as RFC 5952, as Go prints it). */
export function bigIntToIp (value: bigint, family: IPFamily): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map(s => String((value >> s) & 0xffn)).join('.')
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map(s => Number((value >> s) & 0xffffn))
  // The longest run of two or more zero groups becomes `::` (the first such run on a tie).
  let best = { start: -1, length: 0 }
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i }
    i = j
  }
  const hex = groups.map(g => g.toString(16))
  if (best.start < 0) return hex.join(':')
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`
}

/** The canonical text of an address, or undefined when it is none. */
export function canonicalIp (ip: string): string | undefined {
  const parsed = ipToBigInt(ip)
  return parsed === undefined ? undefined : bigIntToIp(parsed.value, parsed.family)
}

export interface Cidr {
  text: string
  family: IPFamily
  /** The network address. */
  base: bigint
  prefixLength: number
  bits: number
}

/** `10.96.0.0/12` → its network; undefined when not a CIDR or when host bits are set, as net.ParseCIDR's strict users refuse. */
export function parseCidr (text: string): Cidr | undefined {
  const slash = text.indexOf('/')
  if (slash < 0) return undefined
  const address = ipToBigInt(text.slice(0, slash))
  const lengthText = text.slice(slash + 1)
  if (address === undefined || !/^\d{1,3}$/.test(lengthText)) return undefined
  const bits = address.family === 'IPv4' ? 32 : 128
  const prefixLength = Number(lengthText)
  if (prefixLength > bits) return undefined
  const hostMask = (1n << BigInt(bits - prefixLength)) - 1n
  return { text, family: address.family, base: address.value & ~hostMask, prefixLength, bits }
}

/**
 * The addresses of a service CIDR that may be allocated, as the reference allocator counts
 * them: without the network address, and for IPv4 without the broadcast address either.
 */
export function ipRange (cidr: Cidr): ValueRange & { family: IPFamily, cidr: Cidr } {
  const total = 1n << BigInt(cidr.bits - cidr.prefixLength)
  const reserved = cidr.family === 'IPv4' ? 2n : 1n
  const size = total > reserved ? total - reserved : 0n
  const first = cidr.base + 1n
  return {
    text: cidr.text,
    family: cidr.family,
    cidr,
    size,
    staticBand: staticBand(total, 16n, 16n, 256n),
    valueAt: (offset) => bigIntToIp(first + offset, cidr.family),
    offsetOf (value) {
      const parsed = ipToBigInt(value)
      if (parsed === undefined || parsed.family !== cidr.family) return undefined
      const offset = parsed.value - first
      return offset >= 0n && offset < size ? offset : undefined
    }
  }
}

/**
 * The reference's `min(max(low, size/step), high)`, 0 for ranges of `low` or fewer (the service
 * IP and node port allocators' static subranges, on by default since 1.26 and 1.29).
 */
function staticBand (size: bigint, low: bigint, step: bigint, high: bigint): bigint {
  if (size <= low) return 0n
  const band = size / step
  return band < low ? low : band > high ? high : band
}

export interface PortRangeSpec { base: number, size: number }

/** `30000-32767` (or a single port) → the range; undefined when malformed. */
export function parsePortRange (text: string): PortRangeSpec | undefined {
  const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(text.trim())
  if (m === null) return undefined
  const low = Number(m[1])
  const high = m[2] === undefined ? low : Number(m[2])
  if (low < 1 || high > 65535 || high < low) return undefined
  return { base: low, size: high - low + 1 }
}

export function portRange (spec: PortRangeSpec): ValueRange {
  return {
    text: `${spec.base}-${spec.base + spec.size - 1}`,
    size: BigInt(spec.size),
    staticBand: staticBand(BigInt(spec.size), 16n, 32n, 128n),
    valueAt: (offset) => String(spec.base + Number(offset)),
    offsetOf (value) {
      if (!/^\d{1,5}$/.test(value)) return undefined
      const n = Number(value) - spec.base
      return n >= 0 && n < spec.size ? BigInt(n) : undefined
    }
  }
}
