// Every vendor-named group a kind is served in is spelled in the naming table's GROUPS, which is
// what gives it its upstream twin: a kind added in a new group cannot miss the rule.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RESOURCES } from '../../resources/index.js'
import { GROUP_ALIASES, GROUP_SUFFIX, GROUPS, upstreamTwin } from '../../resources/naming.js'

describe('vendor group names', () => {
  const groups = RESOURCES.flatMap(r => [r.group, ...(r.servedAs ?? []).map(c => c.group)])
    .filter(g => g.endsWith(`.${GROUP_SUFFIX}`))

  it('are all in GROUPS', () => {
    const known = new Set<string>(Object.values(GROUPS))
    for (const g of groups) assert.ok(known.has(g), `${g} is not in resources/naming.ts GROUPS: its upstream spelling is not served`)
  })

  it('each have an upstream twin that leads back to them', () => {
    for (const g of groups) {
      const twin = upstreamTwin(g)
      assert.notEqual(twin, g)
      assert.equal(GROUP_ALIASES[twin], g)
    }
  })

  it('leave groups without the vendor suffix alone', () => {
    for (const g of ['', 'apps', 'batch', 'example.com', 'snapshot.storage.k8s.io']) assert.equal(upstreamTwin(g), g)
  })
})
