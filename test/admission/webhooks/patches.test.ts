// A mutating webhook's patch: decoded as the reference decodes it (an undecodable one is a call
// error the failure policy settles), refused on DELETE, applied without the client patch limit,
// and its keys kept as keys.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid } from '../../resources/suite.js'
import { patchOf } from '../../helpers/admission-webhook.js'
import { assertCallError, b64, CMS, MUTATING, webhookCases } from './fixture.js'

type AnyObject = Record<string, any>

describe('admission webhook patches', () => {
  const { app, configure, createCm } = webhookCases()

  it('refuses a DELETE whose mutating webhook answers a patch, and keeps the object', async () => {
    const rule = { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }
    const name = await configure(MUTATING, '/delete-patch', patchOf([{ op: 'add', path: '/metadata/labels/x', value: 'y' }]), rule)
    assert.equal((await createCm('/delete-patch')).statusCode, 201)
    const res = await app().request({ method: 'DELETE', url: `${CMS}/delete-patch` })
    assert.equal(res.statusCode, 500, res.body)
    assert.equal(res.json().reason, 'InternalError')
    assert.equal(res.json().message, `Internal error occurred: admission webhook "${name}" attempted to modify the object, which is not supported for this operation`)
    assert.equal((await app().request({ method: 'GET', url: `${CMS}/delete-patch` })).statusCode, 200)
    // An empty patch modifies nothing: the deletion goes on.
    await configure(MUTATING, '/delete-empty', patchOf([]), rule)
    assert.equal((await createCm('/delete-empty')).statusCode, 201)
    assert.equal((await app().request({ method: 'DELETE', url: `${CMS}/delete-empty` })).statusCode, 200)
  })

  it('ignores an undecodable patch under failurePolicy Ignore and fails with the reference\'s call error under Fail', async () => {
    const cases: Array<[string, AnyObject, string | RegExp]> = [
      ['not-base64', { allowed: true, patchType: 'JSONPatch', patch: 'W3!!' }, 'failed to call webhook: illegal base64 data at input byte 2'],
      ['not-json', { allowed: true, patchType: 'JSONPatch', patch: b64('not json') }, /^received undecodable patch in webhook response: /],
      ['object-patch', { allowed: true, patchType: 'JSONPatch', patch: b64('{"op":"add","path":"/data/b","value":"2"}') }, 'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch']
    ]
    for (const [c, answer, reason] of cases) {
      await configure(MUTATING, `/${c}-ignore`, answer, { failurePolicy: 'Ignore' })
      const ignored = await createCm(`/${c}-ignore`)
      assert.equal(ignored.statusCode, 201, `${c}: ${ignored.body}`)
      assert.deepEqual(ignored.json().data, { a: '1' })
      const name = await configure(MUTATING, `/${c}-fail`, answer)
      assertCallError(await createCm(`/${c}-fail`), name, reason)
    }
  })

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
