// A mutating webhook's patch: decoded as the reference decodes it (an undecodable one is a call
// error the failure policy settles), refused on DELETE, applied without the client patch limit,
// and its keys kept as keys.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid } from '../../resources/suite.js'
import { patchOf } from '../../helpers/admission-webhook.js'
import { MUTATING, webhookCases } from './fixture.js'

describe('admission webhook patches', () => {
  const { configure, createCm } = webhookCases()

  it('applies a webhook patch of 12,000 operations: the client patch limit is not a webhook\'s', async () => {
    const ops = Array.from({ length: 12_000 }, (_, i) => ({ op: 'add', path: `/data/k${i}`, value: 'v' }))
    await configure(MUTATING, '/big-patch', patchOf(ops))
    const started = Date.now()
    const res = await createCm('/big-patch')
    assert.equal(res.statusCode, 201, res.body.slice(0, 500))
    assert.equal(Object.keys(res.json().data).length, 12_001)
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`)
  })

  it('refuses a label __proto__ a webhook patch adds as it refuses any invalid label key', async () => {
    await configure(MUTATING, '/proto-label', patchOf([{ op: 'add', path: '/metadata/labels/__proto__', value: 'x' }]))
    assertInvalid(await createCm('/proto-label'), 'metadata.labels')
  })
})
