// Value pools in the store: claims in range, requested values, taken ones, a full range,
// release, IPv6 and dual stack, exactness under concurrent claims from two storages on one
// database; and the address arithmetic under them.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createPools, StoragePool } from '../../storage/value-pools.js'
import { bigIntToIp, canonicalIp, ipRange, ipToBigInt, parseCidr, parsePortRange, portRange } from '../../resources/value-ranges.js'
import { PoolError } from '../../resources/define.js'
import { servicePools } from '../../resources/services.js'
import { testDatabase } from './fixtures.js'

const cidrPool = (text: string) => ipRange(parseCidr(text)!)

async function refusal (p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof PoolError, String(err))
    return err.refusal
  }
  assert.fail('expected a PoolError')
}

it('reads and prints addresses as Go does', () => {
  assert.equal(canonicalIp('2001:0db8:0000:0000:0000:0000:0000:0001'), '2001:db8::1')
  assert.equal(canonicalIp('::ffff:10.0.0.1'), '::ffff:a00:1')
  assert.equal(canonicalIp('fd00:0:0:1::'), 'fd00:0:0:1::')
  assert.equal(bigIntToIp(ipToBigInt('10.96.0.1')!.value + 255n, 'IPv4'), '10.96.1.0')
  assert.equal(canonicalIp('10.96.0.300'), undefined)
  assert.equal(parseCidr('10.96.0.0/33'), undefined)
  assert.deepEqual(parsePortRange('30000-32767'), { base: 30000, size: 2768 })
  assert.equal(parsePortRange('40000-30000'), undefined)
})

it('counts a service range without its network and broadcast addresses', () => {
  const v4 = cidrPool('10.96.0.0/29')
  assert.equal(v4.size, 6n)
  assert.equal(v4.valueAt(0n), '10.96.0.1')
  assert.equal(v4.valueAt(5n), '10.96.0.6')
  assert.equal(v4.offsetOf('10.96.0.7'), undefined)
  assert.equal(v4.offsetOf('10.96.0.0'), undefined)
  const v6 = cidrPool('fd00::/120')
  assert.equal(v6.size, 255n)
  assert.equal(v6.valueAt(0n), 'fd00::1')
  assert.equal(v6.offsetOf('fd00:0::ff'), 254n)
  assert.equal(cidrPool('fd00::/64').size, (1n << 64n) - 1n)
})

it('claims values in range, honours requested ones, refuses taken and outside ones, frees released ones', async (t) => {
  const db = await testDatabase(t)
  const pool = new StoragePool('test/v4', cidrPool('10.96.0.0/28'), await db.open())
  await pool.claim('10.96.0.9', 'owner-b', false)
  assert.equal(await refusal(pool.claim('10.96.0.9', 'owner-c', false)), 'taken')
  assert.equal(await refusal(pool.claim('10.97.0.9', 'owner-c', false)), 'outside')
  // Dry run checks and claims nothing.
  assert.equal(await refusal(pool.claim('10.96.0.9', 'owner-c', true)), 'taken')
  await pool.claim('10.96.0.10', 'owner-c', true)
  await pool.claim('10.96.0.10', 'owner-c', false)
  // Released only by its holder.
  await pool.release('10.96.0.9', 'owner-x')
  assert.equal(await refusal(pool.claim('10.96.0.9', 'owner-c', false)), 'taken')
  await pool.release('10.96.0.9', 'owner-b')
  await pool.claim('10.96.0.9', 'owner-c', false)
  const any = await pool.claimAny('owner-a', false)
  assert.ok(pool.contains(any) && any !== '10.96.0.9' && any !== '10.96.0.10')
  assert.deepEqual((await pool.claims()).map(c => c.value).sort(), [any, '10.96.0.10', '10.96.0.9'].sort())
})

it('allocates from the dynamic band first, as the reference, leaving the static band to requests', async (t) => {
  // min(max(16, size/step), high): ports step 32 up to 128, addresses step 16 up to 256.
  assert.equal(portRange({ base: 30000, size: 2768 }).staticBand, 86n)
  assert.equal(portRange({ base: 30000, size: 16 }).staticBand, 0n)
  assert.equal(portRange({ base: 30000, size: 100 }).staticBand, 16n)
  assert.equal(portRange({ base: 1, size: 65535 }).staticBand, 128n)
  assert.equal(cidrPool('10.96.0.0/12').staticBand, 256n)
  assert.equal(cidrPool('10.96.0.0/24').staticBand, 16n)
  assert.equal(cidrPool('10.96.0.0/28').staticBand, 0n)
  const db = await testDatabase(t)
  const pool = new StoragePool('test/bands', portRange({ base: 30000, size: 20 }), await db.open())
  // 16 of the 20 are the static band; the four above it go first, then the static band.
  const first = new Set<string>()
  for (let i = 0; i < 4; i++) first.add(await pool.claimAny(`o${i}`, false))
  assert.deepEqual([...first].sort(), ['30016', '30017', '30018', '30019'])
  const next = Number(await pool.claimAny('o4', false))
  assert.ok(next >= 30000 && next < 30016, String(next))
})

it('says range is full once every value is claimed', async (t) => {
  const db = await testDatabase(t)
  const pool = new StoragePool('test/small', cidrPool('10.0.0.0/29'), await db.open())
  const got = new Set<string>()
  for (let i = 0; i < 6; i++) got.add(await pool.claimAny(`o${i}`, false))
  assert.equal(got.size, 6)
  const err = await pool.claimAny('late', false).catch(e => e)
  assert.ok(err instanceof PoolError)
  assert.equal(err.refusal, 'full')
  assert.equal(err.message, 'range is full')
  await pool.release('10.0.0.3')
  assert.equal(await pool.claimAny('late', false), '10.0.0.3')
})

it('claims IPv6 addresses in their canonical form, beside IPv4 ones (dual stack)', async (t) => {
  const db = await testDatabase(t)
  const pools = createPools(await db.open(), servicePools({ clusterIPRanges: ['fd00:10:96::/112', '10.96.0.0/16'], nodePortRange: '30000-30010' }))
  assert.deepEqual(pools.names(), ['services/cluster-ips/IPv6', 'services/cluster-ips/IPv4', 'services/node-ports'])
  const v6 = pools.get('services/cluster-ips/IPv6')!
  await v6.claim('fd00:10:96:0:0:0:0:a', 'svc', false)
  assert.deepEqual((await v6.claims()).map(c => c.value), ['fd00:10:96::a'])
  assert.equal(await refusal(v6.claim('fd00:10:96::a', 'other', false)), 'taken')
  assert.match(await v6.claimAny('svc', false), /^fd00:10:96::[0-9a-f]{1,4}$/)
  assert.match(await pools.get('services/cluster-ips/IPv4')!.claimAny('svc', false), /^10\.96\./)
  const port = Number(await pools.get('services/node-ports')!.claimAny('svc', false))
  assert.ok(port >= 30000 && port <= 30010)
})

it('gives every value once when two storages on one database claim at the same time', async (t) => {
  const db = await testDatabase(t)
  const [a, b] = [new StoragePool('test/race', cidrPool('10.1.0.0/25'), await db.open()), new StoragePool('test/race', cidrPool('10.1.0.0/25'), await db.open())]
  // 126 addresses for 126 claims: the last ones must find the few left.
  const results = await Promise.all(Array.from({ length: 126 }, (_v, i) => (i % 2 === 0 ? a : b).claimAny(`o${i}`, false)))
  assert.equal(new Set(results).size, 126)
  assert.equal((await a.claims()).length, 126)
})
