import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { buildTestApp } from '../helpers/app.js'
import { defineResource } from '../../resources/define.js'
import { objectSchema } from '../../resources/meta.js'

const echoes = defineResource({
  group: 'test.example', version: 'v1', kind: 'Echo', plural: 'echoes', singular: 'echo', scope: 'Namespaced',
  schema: objectSchema('test.example/v1', 'Echo', { spec: Type.Object({ count: Type.Integer() }), status: Type.Optional(Type.Object({ by: Type.String() })) }),
  verbs: ['create'],
  virtual: { create: async (body, ctx) => ({ ...body, status: { by: `${ctx.user.username}@${ctx.namespace}` } }) }
})

describe('create-only kinds and subresources', () => {
  it('answers POST on a virtual kind after the schema check, and stores nothing', async (t) => {
    const { app, request } = await buildTestApp(t)
    app.resources.add(echoes)
    const url = '/apis/test.example/v1/namespaces/default/echoes'
    const res = await request({ method: 'POST', url, payload: { spec: { count: 3 } }, as: 'bob' })
    assert.equal(res.statusCode, 201)
    assert.deepEqual(res.json(), { kind: 'Echo', apiVersion: 'test.example/v1', metadata: { namespace: 'default' }, spec: { count: 3 }, status: { by: 'bob@default' } })
    const bad = await request({ method: 'POST', url, payload: { spec: { count: 'three' } } })
    assert.equal(bad.statusCode, 422)
    assert.equal(bad.json().reason, 'Invalid')
    assert.equal((await request({ method: 'GET', url })).statusCode, 405)
    assert.equal((await app.storage.list({ prefix: '/registry/test.example/echoes/' })).items.length, 0)
  })

  it('dispatches POST on <item>/<sub> to the subresource with the stored parent', async (t) => {
    const { app, request } = await buildTestApp(t)
    app.resources.addSubresource({ group: '', resource: 'configmaps' }, 'describe', {
      verbs: ['create'],
      create: (_ctx, parent, body) => ({ kind: 'Description', of: parent.metadata.name, keys: Object.keys(parent.data ?? {}), asked: body.question })
    })
    await request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'cm' }, data: { a: '1', b: '2' } } })
    const res = await request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps/cm/describe', payload: { question: 'keys?' } })
    assert.equal(res.statusCode, 201)
    assert.deepEqual(res.json(), { kind: 'Description', of: 'cm', keys: ['a', 'b'], asked: 'keys?' })
    assert.equal((await request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps/missing/describe', payload: {} })).statusCode, 404)
    assert.equal((await request({ method: 'PUT', url: '/api/v1/namespaces/default/configmaps/cm/describe', payload: {} })).statusCode, 405)
  })
})
