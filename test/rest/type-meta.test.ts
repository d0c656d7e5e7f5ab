import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { checkTypeMeta } from '../../plugins/rest/type-meta.js'
import { GROUPS, upstreamGroup } from '../../resources/naming.js'
import { ApiError } from '../../resources/status.js'

const ROLE = { apiVersion: `${GROUPS.rbac}/v1`, kind: 'Role' }

const refusal = (fn: () => void): { code: number, message: string } => {
  try {
    fn()
  } catch (err) {
    assert.ok(err instanceof ApiError)
    return { code: err.code, message: err.message }
  }
  assert.fail('not refused')
}

describe('the type meta of a body', () => {
  it('takes the expected type meta, an absent one, and the upstream twin of its group', () => {
    checkTypeMeta({}, ROLE)
    checkTypeMeta({ ...ROLE }, ROLE)
    checkTypeMeta({ apiVersion: `${upstreamGroup('rbac.authorization')}/v1`, kind: 'Role' }, ROLE)
  })

  it('refuses another version, another group, another kind, and an apiVersion that is no string, in the reference words', () => {
    assert.deepEqual(refusal(() => checkTypeMeta({ apiVersion: `${GROUPS.rbac}/v1beta1` }, ROLE)),
      { code: 400, message: `the API version in the data (${GROUPS.rbac}/v1beta1) does not match the expected API version (${GROUPS.rbac}/v1)` })
    assert.equal(refusal(() => checkTypeMeta({ apiVersion: 'v1' }, ROLE)).code, 400)
    assert.equal(refusal(() => checkTypeMeta({ apiVersion: [`${GROUPS.rbac}/v1`] }, ROLE)).code, 400)
    assert.deepEqual(refusal(() => checkTypeMeta({ kind: 'ClusterRole' }, ROLE)),
      { code: 400, message: 'the kind in the data (ClusterRole) does not match the expected kind (Role)' })
  })

  it('names the apiVersion the path spelled when given one', () => {
    const shown = `${upstreamGroup('rbac.authorization')}/v1`
    assert.match(refusal(() => checkTypeMeta({ apiVersion: 'v1' }, ROLE, shown)).message, new RegExp(`expected API version \\(${shown.replace(/\./g, '\\.')}\\)$`))
  })
})
