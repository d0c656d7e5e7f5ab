import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

const NS = '/api/v1/namespaces'

async function until (what: string, check: () => Promise<boolean>, ms = 15000): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (await check()) return
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  assert.fail(`timed out waiting for ${what}`)
}

test('the system namespaces exist and the first three cannot be deleted', async (t) => {
  const app = await buildTestApp(t)
  const list = (await app.request({ method: 'GET', url: NS })).json()
  assert.deepEqual(list.items.map((n: any) => n.metadata.name).sort(), ['default', 'svc-node-lease', 'svc-public', 'svc-system'])
  for (const name of ['default', 'svc-system', 'svc-public']) {
    const res = await app.request({ method: 'DELETE', url: `${NS}/${name}` })
    assert.equal(res.statusCode, 403, name)
    assert.equal(res.json().message, `namespaces "${name}" is forbidden: this namespace may not be deleted`)
  }
})

test('a namespace is Active, labelled with its name, and finalized by the server', async (t) => {
  const app = await buildTestApp(t)
  const created = await app.request({ method: 'POST', url: NS, payload: { metadata: { name: 'team' } } })
  assert.equal(created.statusCode, 201)
  const ns = created.json()
  assert.equal(ns.status.phase, 'Active')
  assert.equal(ns.metadata.labels['svc.io/metadata.name'], 'team')
  assert.deepEqual(ns.spec.finalizers, ['svc'])
  const tampered = await app.request({ method: 'PUT', url: `${NS}/team`, payload: { ...ns, spec: { finalizers: [] }, metadata: { ...ns.metadata, labels: {} } } })
  assert.deepEqual(tampered.json().spec.finalizers, ['svc'], 'only /finalize changes spec.finalizers')
  assert.equal(tampered.json().metadata.labels['svc.io/metadata.name'], 'team')
  const badName = await app.request({ method: 'POST', url: NS, payload: { metadata: { name: 'Not_A_Label' } } })
  assert.equal(badName.statusCode, 422)
})

test('deleting a namespace empties it, then removes it; creating inside is refused meanwhile', async (t) => {
  const app = await buildTestApp(t)
  await app.request({ method: 'POST', url: NS, payload: { metadata: { name: 'doomed' } } })
  for (let i = 0; i < 3; i++) await app.request({ method: 'POST', url: `${NS}/doomed/configmaps`, payload: { metadata: { name: `c${i}` } } })
  await app.request({ method: 'POST', url: `${NS}/doomed/secrets`, payload: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } })
  const del = await app.request({ method: 'DELETE', url: `${NS}/doomed` })
  // 200 with the terminating object, as the reference handler answers a deletion that is not done yet
  // (202 only for orphanDependents=false).
  assert.equal(del.statusCode, 200)
  assert.equal(del.json().status.phase, 'Terminating')
  const refused = await app.request({ method: 'POST', url: `${NS}/doomed/configmaps`, payload: { metadata: { name: 'late' } } })
  assert.equal(refused.statusCode, 403)
  assert.match(refused.json().message, /unable to create new content in namespace doomed because it is being terminated/)
  await until('configmaps deleted', async () => (await app.request({ method: 'GET', url: `${NS}/doomed/configmaps` })).json().items.length === 0)
  assert.equal((await app.request({ method: 'GET', url: `${NS}/doomed` })).statusCode, 200, 'held by the secret\'s finalizer')
  await app.request({ method: 'PATCH', url: `${NS}/doomed/secrets/held`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ metadata: { finalizers: null } }) })
  await until('namespace gone', async () => (await app.request({ method: 'GET', url: `${NS}/doomed` })).statusCode === 404)
  const missing = await app.request({ method: 'POST', url: `${NS}/doomed/configmaps`, payload: { metadata: { name: 'x' } } })
  assert.equal(missing.statusCode, 404)
  assert.equal(missing.json().message, 'namespaces "doomed" not found')
})
