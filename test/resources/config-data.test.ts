// ConfigMap and Secret against document 2: keys, overlap, size, stringData, immutability, type, delete answers.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const cms = '/api/v1/namespaces/default/configmaps'
const secrets = '/api/v1/namespaces/default/secrets'
const mergePatch = { 'content-type': 'application/merge-patch+json' }

describe('configmaps and secrets', () => {
  const app = suiteApp()
  let n = 0
  const post = (url: string, body: Record<string, unknown>) => app().request({ method: 'POST', url, payload: { metadata: { name: `o${++n}` }, ...body } })

  const cases: Array<{ name: string, url: string, body: Record<string, unknown>, field?: string, reason?: string, message?: string }> = [
    { name: 'configmap keys of letters, digits, - _ .', url: cms, body: { data: { 'app.properties': 'a=1', KEY_1: 'x', 'a-b': 'y' }, binaryData: { 'logo.png': 'iVBORw0K' } } },
    { name: 'a configmap key with a slash', url: cms, body: { data: { 'a/b': 'x' } }, field: 'data[a/b]', reason: 'FieldValueInvalid' },
    { name: 'a binaryData key overlapping data', url: cms, body: { data: { k: 'x' }, binaryData: { k: 'eA==' } }, field: 'data[k]', message: 'duplicate of key present in binaryData' },
    { name: 'binaryData that is not base64', url: cms, body: { binaryData: { k: '***' } }, field: 'binaryData[k]' },
    { name: 'a configmap over the size limit', url: cms, body: { data: { k: 'x'.repeat(1024 * 1024 + 1) } }, field: '', reason: 'FieldValueTooLong' },
    { name: 'a secret key with a space', url: secrets, body: { data: { 'a b': 'eA==' } }, field: 'data[a b]' },
    { name: 'a secret over the size limit', url: secrets, body: { stringData: { k: 'x'.repeat(1024 * 1024 + 1) } }, field: 'data', reason: 'FieldValueTooLong' },
    { name: 'a service account token secret without its account', url: secrets, body: { type: 'svc.io/service-account-token' }, field: 'metadata.annotations[svc.io/service-account.name]', reason: 'FieldValueRequired' },
    { name: 'a bootstrap token secret', url: secrets, body: { type: 'bootstrap.svc.io/token', stringData: { 'token-id': 'abcdef' } } }
  ]
  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await post(c.url, c.body)
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('merges stringData into data, overriding, and never returns it', async () => {
    const res = await post(secrets, { data: { a: 'b2xk', b: 'eA==' }, stringData: { a: 'new' } })
    assert.deepEqual(res.json().data, { a: Buffer.from('new').toString('base64'), b: 'eA==' })
    assert.equal(res.json().stringData, undefined)
    assert.equal(res.json().type, 'Opaque')
  })

  for (const [kind, url, field] of [['configmap', cms, 'data'], ['secret', secrets, 'data']] as const) {
    it(`freezes an immutable ${kind}'s data, not its metadata, and never unsets immutable`, async () => {
      const name = `frozen-${kind}`
      await app().request({ method: 'POST', url, payload: { metadata: { name }, data: { k: 'eA==' }, immutable: true } })
      const patch = (body: unknown) => app().request({ method: 'PATCH', url: `${url}/${name}`, headers: mergePatch, payload: JSON.stringify(body) })
      assertInvalid(await patch({ [field]: { k: 'eQ==' } }), field, 'FieldValueForbidden', 'field is immutable when `immutable` is set')
      assertInvalid(await patch({ immutable: false }), 'immutable', 'FieldValueForbidden')
      assert.equal((await patch({ metadata: { labels: { a: 'b' } } })).statusCode, 200)
    })
    it(`answers delete of a ${kind} with a Status`, async () => {
      const res = await app().request({ method: 'DELETE', url: `${url}/frozen-${kind}` })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().kind, 'Status')
      assert.equal(res.json().status, 'Success')
    })
  }

  it('keeps a secret\'s type and selects by it', async () => {
    await app().request({ method: 'POST', url: secrets, payload: { metadata: { name: 'tls' }, type: 'svc.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } } })
    assertInvalid(await app().request({ method: 'PATCH', url: `${secrets}/tls`, headers: mergePatch, payload: JSON.stringify({ type: 'Opaque' }) }), 'type', 'FieldValueInvalid', 'field is immutable')
    const res = await app().request({ method: 'GET', url: `${secrets}?fieldSelector=type%3Dsvc.io%2Ftls` })
    assert.deepEqual(res.json().items.map((s: any) => s.metadata.name), ['tls'])
  })
})
