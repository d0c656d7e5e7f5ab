// --discovery-upstream-groups: discovery lists every group under its upstream name too, after
// ours (a plain plural still resolves to our group); without it only the ones kubectl needs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS, upstreamGroup } from '../../resources/naming.js'

const groupNames = async (request: Awaited<ReturnType<typeof buildTestApp>>['request']): Promise<string[]> =>
  ((await request({ method: 'GET', url: '/apis' })).json().groups as Array<{ name: string }>).map(g => g.name)

test('discovery lists the upstream group names only when asked', async (t) => {
  const plain = await buildTestApp(t)
  const without = await groupNames(plain.request)
  assert.ok(without.includes(upstreamGroup('certificates')), 'kubectl certificate approve needs it whatever the flag')
  assert.ok(!without.includes(upstreamGroup('storage')))

  const listing = await buildTestApp(t, { discoveryUpstreamGroups: true })
  const all = await groupNames(listing.request)
  for (const g of [GROUPS.storage, GROUPS.coordination, GROUPS.rbac]) {
    assert.ok(all.includes(upstreamGroup(g.slice(0, -'.svc.io'.length))), `${g}'s twin`)
    assert.ok(all.indexOf(g) < all.indexOf(upstreamGroup(g.slice(0, -'.svc.io'.length))), `${g} comes first`)
  }
  const leases = await listing.request({ method: 'GET', url: `/apis/${upstreamGroup('coordination')}/v1` })
  assert.equal(leases.statusCode, 200)
  assert.ok(leases.json().resources.some((r: { name: string }) => r.name === 'leases'))
})
