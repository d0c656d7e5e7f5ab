// What a webhook's answer may be, and what the server makes of one that is not an answer: the
// reference's VerifyAdmissionResponse and ToStatusErr, case by case.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { patchOf } from '../../helpers/admission-webhook.js'
import { assertCallError, b64, MUTATING, VALIDATING, webhookCases } from './fixture.js'

type AnyObject = Record<string, any>

describe('admission webhook answers', () => {
  const { app, configure, createCm } = webhookCases()

  it('takes an answer with no allowed, or allowed null, as a denial whatever the failure policy', async () => {
    const missing = await configure(VALIDATING, '/allowed-missing', {}, { failurePolicy: 'Ignore' })
    const res = await createCm('/allowed-missing')
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().message, `admission webhook "${missing}" denied the request without explanation`)
    await configure(MUTATING, '/allowed-null', { allowed: null, status: { message: 'no' } }, { failurePolicy: 'Ignore' })
    assert.equal((await createCm('/allowed-null')).statusCode, 400)
    // A value that is not a boolean does not decode: a call error, ignored under Ignore.
    await configure(VALIDATING, '/allowed-text', { allowed: 'yes' }, { failurePolicy: 'Ignore' })
    assert.equal((await createCm('/allowed-text')).statusCode, 201)
    const text = await configure(VALIDATING, '/allowed-text-fail', { allowed: 'yes' })
    assertCallError(await createCm('/allowed-text-fail'), text, /^failed to call webhook: json: cannot unmarshal string into Go struct field AdmissionResponse\.response\.allowed of type bool$/)
  })

  it('treats a patch from a validating webhook, and a patch without its type (or a type without a patch) from a mutating one, as call errors', async () => {
    const cases: Array<[string, string, AnyObject, string]> = [
      ['validating-patch', VALIDATING, patchOf([]), 'validating webhook may not return response.patch'],
      ['validating-patch-type', VALIDATING, { allowed: true, patchType: 'JSONPatch' }, 'validating webhook may not return response.patchType'],
      ['mutating-type-only', MUTATING, { allowed: true, patchType: 'JSONPatch' }, 'webhook returned response.patchType but not response.patch'],
      ['mutating-patch-only', MUTATING, { allowed: true, patch: b64('[]') }, 'webhook returned response.patch but not response.patchType']
    ]
    for (const [c, url, answer, reason] of cases) {
      const name = await configure(url, `/${c}`, answer)
      assertCallError(await createCm(`/${c}`), name, `received invalid webhook response: ${reason}`)
      await configure(url, `/${c}-ignore`, answer, { failurePolicy: 'Ignore' })
      assert.equal((await createCm(`/${c}-ignore`)).statusCode, 201)
    }
    const merge = await configure(MUTATING, '/merge-patch-type', { allowed: true, patchType: 'Merge', patch: b64('[{"op":"add","path":"/data/b","value":"2"}]') })
    assertCallError(await createCm('/merge-patch-type'), merge, 'unsupported patch type "Merge"')
  })

  it('checks neither the uid nor the patch type of a v1beta1 answer', async () => {
    const v1beta1 = { admissionReviewVersions: ['v1beta1'] }
    await configure(VALIDATING, '/beta-uid', { uid: 'not-the-one', allowed: true }, v1beta1)
    assert.equal((await createCm('/beta-uid')).statusCode, 201)
    await configure(VALIDATING, '/beta-validating-patch', { allowed: true, patch: b64('[{"op":"add","path":"/data/b","value":"2"}]') }, v1beta1)
    const validated = await createCm('/beta-validating-patch')
    assert.equal(validated.statusCode, 201, validated.body)
    assert.deepEqual(validated.json().data, { a: '1' })
    await configure(MUTATING, '/beta-untyped-patch', { uid: 'other', allowed: true, patch: b64('[{"op":"add","path":"/data/b","value":"2"}]') }, v1beta1)
    const mutated = await createCm('/beta-untyped-patch')
    assert.equal(mutated.statusCode, 201, mutated.body)
    assert.deepEqual(mutated.json().data, { a: '1', b: '2' })
  })

  it('answers a denial code outside what a status can be as the reference does, never with Fastify\'s error body', async () => {
    await configure(VALIDATING, '/code-200', { allowed: false, status: { code: 200, message: 'nope' } })
    assert.equal((await createCm('/code-200')).statusCode, 400)
    const big = await configure(VALIDATING, '/code-1000', { allowed: false, status: { code: 1000, message: 'nope' } })
    const res = await createCm('/code-1000')
    assert.equal(res.statusCode, 500, res.body)
    assert.equal(res.json().kind, 'Status')
    assert.equal(res.json().code, 500)
    assert.ok(res.json().message.includes(`admission webhook "${big}" denied the request: nope`), res.json().message)
    for (const [c, code] of [['code-huge', 2 ** 40], ['code-fraction', 403.5]] as const) {
      const name = await configure(VALIDATING, `/${c}`, { allowed: false, status: { code, message: 'nope' } })
      assertCallError(await createCm(`/${c}`), name, `failed to call webhook: json: cannot unmarshal number ${code} into Go struct field Status.response.status.code of type int32`)
      await configure(VALIDATING, `/${c}-ignore`, { allowed: false, status: { code, message: 'nope' } }, { failurePolicy: 'Ignore' })
      assert.equal((await createCm(`/${c}-ignore`)).statusCode, 201)
    }
  })

  it('treats a denial whose details do not decode as a call error, and passes decodable ones to the client', async () => {
    const name = await configure(VALIDATING, '/details-text', { allowed: false, status: { code: 403, message: 'nope', details: { causes: 'all of them' } } })
    assertCallError(await createCm('/details-text'), name, 'failed to call webhook: json: cannot unmarshal string into Go struct field StatusDetails.response.status.details.causes of type []v1.StatusCause')
    const details = { name: 'details-ok', kind: 'configmaps', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'data' }] }
    await configure(VALIDATING, '/details-ok', { allowed: false, status: { code: 422, reason: 'Invalid', message: 'nope', details } })
    const res = await createCm('/details-ok')
    assert.equal(res.statusCode, 422)
    assert.equal(res.json().reason, 'Invalid')
    assert.deepEqual(res.json().details, details)
  })

  it('treats an audit annotation that is not a string as a call error', async () => {
    const name = await configure(VALIDATING, '/annotation-number', { allowed: true, auditAnnotations: { count: 1 } })
    assertCallError(await createCm('/annotation-number'), name, 'failed to call webhook: json: cannot unmarshal number into Go struct field AdmissionResponse.response.auditAnnotations of type string')
    await configure(VALIDATING, '/annotation-number-ignore', { allowed: true, auditAnnotations: { count: 1 } }, { failurePolicy: 'Ignore' })
    assert.equal((await createCm('/annotation-number-ignore')).statusCode, 201)
  })
})
