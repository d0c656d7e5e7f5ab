import { describe, it } from 'node:test'
import { assertAllTrue, assertEvalError } from './helpers.js'

describe('CEL IP and CIDR libraries', () => {
  it('parses addresses and answers their kind', () => assertAllTrue([
    'isIP("10.0.0.1")', 'isIP("fd00::1")', '!isIP("::ffff:1.2.3.4")', '!isIP("fe80::1%eth0")', '!isIP("1.2.3")',
    'ip("10.0.0.1").family() == 4', 'ip("::1").family() == 6', 'ip("127.0.0.5").isLoopback()', 'ip("::1").isLoopback()',
    'ip("0.0.0.0").isUnspecified()', 'ip("169.254.1.1").isLinkLocalUnicast()', 'ip("fe80::1").isLinkLocalUnicast()',
    'ip("224.0.0.1").isLinkLocalMulticast()', 'ip("8.8.8.8").isGlobalUnicast()', '!ip("127.0.0.1").isGlobalUnicast()',
    'string(ip("2001:db8:0:0:0:0:0:1")) == "2001:db8::1"', 'ip("10.0.0.1") == ip("10.0.0.1")'
  ]))
  it('parses CIDRs and answers containment, prefix length and masking', () => assertAllTrue([
    'isCIDR("10.0.0.0/8")', '!isCIDR("10.0.0.0/33")', '!isCIDR("10.0.0.0")',
    'cidr("10.0.0.0/8").containsIP("10.1.2.3")', 'cidr("10.0.0.0/8").containsIP(ip("10.1.2.3"))', '!cidr("10.0.0.0/8").containsIP("11.0.0.1")',
    '!cidr("10.0.0.0/8").containsIP("::1")', 'cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")', '!cidr("10.1.0.0/16").containsCIDR("10.0.0.0/8")',
    'cidr("10.0.0.0/8").containsCIDR(cidr("10.0.0.0/8"))', 'cidr("192.168.1.5/24").prefixLength() == 24',
    'cidr("192.168.1.5/24").ip() == ip("192.168.1.5")', 'string(cidr("192.168.1.5/24").masked()) == "192.168.1.0/24"',
    'cidr("fd00::1/64").masked() == cidr("fd00::/64")'
  ]))
  it('fails ip() and cidr() of malformed text', () => {
    assertEvalError('ip("1.2.3").family() == 4', /IP Address "1.2.3" parse error/)
    assertEvalError('cidr("10.0.0.0/40").prefixLength() == 1', /network address parse error/)
  })
})
