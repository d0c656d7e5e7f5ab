// The reference's IP and CIDR libraries (apiserver/pkg/cel/library/ip.go, cidr.go), as Go's
// netip: IPv4-mapped IPv6 addresses and zones are refused; a CIDR may have host bits set, which
// masked() clears.
import type { Environment } from '@marcbachmann/cel-js'
import { bigIntToIp, ipToBigInt, type IPFamily } from '../../../resources/value-ranges.js'

export class CelIp {
  constructor (readonly value: bigint, readonly family: IPFamily) {}
  get bits (): number { return this.family === 'IPv4' ? 32 : 128 }
  toString (): string { return bigIntToIp(this.value, this.family) }
}

export class CelCidr {
  constructor (readonly ip: CelIp, readonly prefixLength: number) {}
  get network (): bigint { return this.ip.value & ~((1n << BigInt(this.ip.bits - this.prefixLength)) - 1n) }
  toString (): string { return `${this.ip.toString()}/${this.prefixLength}` }
}

export function parseIp (s: string): CelIp | undefined {
  if (s.includes('%')) return undefined
  const parsed = ipToBigInt(s)
  if (parsed === undefined) return undefined
  if (parsed.family === 'IPv6' && (parsed.value >> 32n) === 0xffffn) return undefined
  return new CelIp(parsed.value, parsed.family)
}

export function parseCidrPrefix (s: string): CelCidr | undefined {
  const slash = s.indexOf('/')
  if (slash < 0) return undefined
  const ip = parseIp(s.slice(0, slash))
  const len = s.slice(slash + 1)
  if (ip === undefined || !/^(0|[1-9]\d{0,2})$/.test(len) || Number(len) > ip.bits) return undefined
  return new CelCidr(ip, Number(len))
}

function mustIp (s: string): CelIp {
  const ip = parseIp(s)
  if (ip === undefined) throw new Error(`IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): unable to parse IP`)
  return ip
}

function mustCidr (s: string): CelCidr {
  const c = parseCidrPrefix(s)
  if (c === undefined) throw new Error(`network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("${s}"): unable to parse`)
  return c
}

function contains (c: CelCidr, ip: CelIp): boolean {
  if (c.ip.family !== ip.family) return false
  const mask = ~((1n << BigInt(c.ip.bits - c.prefixLength)) - 1n)
  return (ip.value & mask) === c.network
}

const inRange = (ip: CelIp, cidr: string): boolean => contains(parseCidrPrefix(cidr)!, ip)

export function registerIp (env: Environment): void {
  env.registerType('net.IP', { ctor: CelIp })
  env.registerType('net.CIDR', { ctor: CelCidr })
  env.registerFunction('ip(string): net.IP', mustIp)
  env.registerFunction('isIP(string): bool', (s: string) => parseIp(s) !== undefined)
  env.registerFunction('string(net.IP): string', (ip: CelIp) => ip.toString())
  env.registerFunction('net.IP.family(): int', (ip: CelIp) => ip.family === 'IPv4' ? 4n : 6n)
  env.registerFunction('net.IP.isUnspecified(): bool', (ip: CelIp) => ip.value === 0n)
  env.registerFunction('net.IP.isLoopback(): bool', (ip: CelIp) => ip.family === 'IPv4' ? inRange(ip, '127.0.0.0/8') : ip.value === 1n)
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: CelIp) => inRange(ip, ip.family === 'IPv4' ? '224.0.0.0/24' : 'ff02::/16'))
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: CelIp) => inRange(ip, ip.family === 'IPv4' ? '169.254.0.0/16' : 'fe80::/10'))
  // Go's IsGlobalUnicast: not unspecified, loopback, link-local, multicast or (IPv4) broadcast.
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (ip: CelIp) => {
    if (ip.value === 0n) return false
    if (ip.family === 'IPv4') return !(inRange(ip, '127.0.0.0/8') || inRange(ip, '169.254.0.0/16') || inRange(ip, '224.0.0.0/4') || ip.value === 0xffffffffn)
    return !(ip.value === 1n || inRange(ip, 'fe80::/10') || inRange(ip, 'ff00::/8'))
  })
  env.registerOperator('net.IP == net.IP', (a: CelIp, b: CelIp) => a.family === b.family && a.value === b.value)

  env.registerFunction('cidr(string): net.CIDR', mustCidr)
  env.registerFunction('isCIDR(string): bool', (s: string) => parseCidrPrefix(s) !== undefined)
  env.registerFunction('string(net.CIDR): string', (c: CelCidr) => c.toString())
  env.registerFunction('net.CIDR.ip(): net.IP', (c: CelCidr) => c.ip)
  env.registerFunction('net.CIDR.prefixLength(): int', (c: CelCidr) => BigInt(c.prefixLength))
  env.registerFunction('net.CIDR.masked(): net.CIDR', (c: CelCidr) => new CelCidr(new CelIp(c.network, c.ip.family), c.prefixLength))
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', contains)
  env.registerFunction('net.CIDR.containsIP(string): bool', (c: CelCidr, s: string) => contains(c, mustIp(s)))
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (c: CelCidr, o: CelCidr) => o.prefixLength >= c.prefixLength && contains(c, o.ip))
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (c: CelCidr, s: string) => { const o = mustCidr(s); return o.prefixLength >= c.prefixLength && contains(c, o.ip) })
  env.registerOperator('net.CIDR == net.CIDR', (a: CelCidr, b: CelCidr) => a.toString() === b.toString())
}
