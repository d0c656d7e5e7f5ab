// Quantity fields in request bodies decode as the reference's Quantity.UnmarshalJSON does: a
// JSON number is a quantity, surrounding space is trimmed, binary values are capped.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

describe('quantity fields', () => {
  const app = suiteApp()
  const create = (name: string, hard: Record<string, unknown>) => app().request({
    method: 'POST', url: '/api/v1/namespaces/default/resourcequotas', payload: { metadata: { name }, spec: { hard } }
  })

  it('accepts JSON numbers and trims surrounding space', async () => {
    const res = await create('numbers', { pods: 5, 'requests.cpu': 0.5, 'requests.memory': ' 1Gi ' })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().spec.hard, { pods: '5', 'requests.cpu': '500m', 'requests.memory': '1Gi' })
  })

  it('caps binary quantities at 2^63-1 as the reference parses them', async () => {
    const res = await create('capped', { 'requests.memory': '16Ei', 'limits.memory': '1000E' })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().spec.hard, { 'requests.memory': '9223372036854775807', 'limits.memory': '1' })
  })

  it('still refuses what is not a quantity, with a Status', async () => {
    assertInvalid(await create('bad', { pods: 'lots' }), 'spec.hard[pods]', 'FieldValueInvalid', 'quantities must match the regular expression')
    assertInvalid(await create('bool', { pods: true }), 'spec.hard[pods]')
  })
})
