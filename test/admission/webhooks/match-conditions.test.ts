// Webhooks' matchConditions: compiled when the configuration is written (at most 64, the
// reference's messages), evaluated before the call with object, oldObject, request and
// authorizer; all true calls the webhook, any false skips it, an error follows failurePolicy.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid } from '../../resources/suite.js'
import { VALIDATING, assertCallError, webhookCases } from './fixture.js'

const ALLOW = { allowed: true }

describe('webhook matchConditions', () => {
  const cases = webhookCases()
  const write = (conditions: unknown[]) => cases.app().request({
    method: 'POST',
    url: VALIDATING,
    payload: {
      metadata: { name: `invalid-${Math.random().toString(36).slice(2, 8)}` },
      webhooks: [{ name: 'w.hooks.example.com', clientConfig: { url: 'https://example.com/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'], matchConditions: conditions }]
    }
  })

  it('are compiled when written: a bool, named, at most 64', async () => {
    const res = await write([{ name: 'six', expression: '6' }, { name: 'bad name!', expression: 'object.x in [' }, { name: 'p', expression: 'params.x' }])
    assertInvalid(res, 'webhooks[0].matchConditions[0].expression', 'FieldValueInvalid', 'must evaluate to bool')
    assertInvalid(res, 'webhooks[0].matchConditions[1].expression', 'FieldValueInvalid', 'compilation failed: ERROR: <input>:1:')
    assertInvalid(res, 'webhooks[0].matchConditions[1].name', 'FieldValueInvalid')
    assertInvalid(res, 'webhooks[0].matchConditions[2].expression', 'FieldValueInvalid', "undeclared reference to 'params'")
    const many = await write(Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })))
    assertInvalid(many, 'webhooks[0].matchConditions', 'FieldValueTooMany')
    assert.equal((await write([{ name: 'ok', expression: "request.userInfo.username != 'x' && authorizer.path('/healthz').check('get').allowed()" }])).statusCode, 201)
  })

  it('a webhook whose conditions are all true is called; one false skips it', async () => {
    const hooks: string[] = []
    await cases.configure(VALIDATING, '/mc-true', () => { hooks.push('true'); return ALLOW }, {
      matchConditions: [{ name: 'named', expression: "object.metadata.name.startsWith('mc-')" }, { name: 'admin', expression: "request.userInfo.username == 'admin'" }]
    })
    await cases.configure(VALIDATING, '/mc-false', () => { hooks.push('false'); return { allowed: false } }, {
      matchConditions: [{ name: 'no-system', expression: "!request.userInfo.username.startsWith('admin')" }]
    })
    assert.equal((await cases.createCm('/mc-true')).statusCode, 201)
    assert.deepEqual(hooks, ['true'])
    // The excluded webhook would refuse: it is not called.
    assert.equal((await cases.createCm('/mc-false')).statusCode, 201)
    assert.deepEqual(hooks, ['true'])
  })

  it('an evaluation error fails the call under Fail and skips the webhook under Ignore', async () => {
    const expression = "object.data.missing == 'x'"
    const failing = await cases.configure(VALIDATING, '/mc-error', () => ALLOW, { matchConditions: [{ name: 'broken', expression }] })
    assertCallError(await cases.createCm('/mc-error'), failing, /^expression 'object\.data\.missing == 'x'' resulted in error: /)
    await cases.configure(VALIDATING, '/mc-error-ignored', () => ({ allowed: false }), { failurePolicy: 'Ignore', matchConditions: [{ name: 'broken', expression }] })
    assert.equal((await cases.createCm('/mc-error-ignored')).statusCode, 201)
  })

  it('a false condition wins over an error', async () => {
    await cases.configure(VALIDATING, '/mc-mixed', () => ({ allowed: false }), {
      matchConditions: [{ name: 'broken', expression: "object.data.missing == 'x'" }, { name: 'never', expression: 'false' }]
    })
    assert.equal((await cases.createCm('/mc-mixed')).statusCode, 201)
  })
})
