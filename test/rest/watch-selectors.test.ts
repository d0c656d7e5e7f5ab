// Watches and lists with label selectors read the cache's attributes of each object and of the
// value each event replaced (extracted on first use): objects entering and leaving the
// selection are ADDED and DELETED, as the reference server sends them.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { buildTestApp } from '../helpers/app.js'

const CM = '/api/v1/namespaces/default/configmaps'

describe('label selectors on the watch cache', () => {
  it('turns moves into and out of the selection into ADDED and DELETED', async (t) => {
    const { request } = await buildTestApp(t)
    const rv = (await request({ method: 'GET', url: CM })).json().metadata.resourceVersion
    const watching = request({ method: 'GET', url: `${CM}?watch=true&labelSelector=app%3Da&resourceVersion=${rv}&timeoutSeconds=3` })
    const put = async (name: string, app: string, v: string): Promise<void> => {
      const res = await request({ method: 'PUT', url: `${CM}/${name}`, payload: { metadata: { name, labels: { app } }, data: { v } } })
      assert.equal(res.statusCode, 200, res.body)
    }
    assert.equal((await request({ method: 'POST', url: CM, payload: { metadata: { name: 'x', labels: { app: 'a' } } } })).statusCode, 201)
    assert.equal((await request({ method: 'POST', url: CM, payload: { metadata: { name: 'y', labels: { app: 'b' } } } })).statusCode, 201)
    await put('y', 'a', '1')
    await put('x', 'b', '1')
    await put('y', 'a', '2')
    assert.equal((await request({ method: 'DELETE', url: `${CM}/x` })).statusCode, 200)
    assert.equal((await request({ method: 'DELETE', url: `${CM}/y` })).statusCode, 200)
    const lines = (await watching).body.trim().split('\n').map(l => JSON.parse(l) as { type: string, object: { metadata: { name: string } } })
    assert.deepEqual(lines.map(l => `${l.type} ${l.object.metadata.name}`),
      ['ADDED x', 'ADDED y', 'DELETED x', 'MODIFIED y', 'DELETED y'])
  })

  it('lists from the cache by label and sends unselected watches every event as it is', async (t) => {
    const { request } = await buildTestApp(t)
    for (const [name, app] of [['p', 'a'], ['q', 'b'], ['r', 'a']]) {
      assert.equal((await request({ method: 'POST', url: CM, payload: { metadata: { name, labels: { app } } } })).statusCode, 201)
    }
    const selected = (await request({ method: 'GET', url: `${CM}?labelSelector=app%3Da` })).json()
    assert.deepEqual(selected.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['p', 'r'])
    const all = await request({ method: 'GET', url: `${CM}?watch=true&timeoutSeconds=1` })
    assert.deepEqual(all.body.trim().split('\n').map(l => JSON.parse(l).object.metadata.name), ['p', 'q', 'r'])
  })
})
