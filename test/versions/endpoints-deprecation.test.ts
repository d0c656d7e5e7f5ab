// Core v1 Endpoints is deprecated in 1.33 (KEP-4974): every request to it, of any verb, carries
// the reference's warning naming EndpointSlice in this server's spelling; kubectl prints it.
// EndpointSlices and other core kinds carry none.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.js'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { GROUPS } from '../../resources/naming.js'

const TEXT = `v1 Endpoints is deprecated in v1.33+; use ${GROUPS.discovery}/v1 EndpointSlice`
const ENDPOINTS = '/api/v1/namespaces/default/endpoints'

test('every request to v1 Endpoints is warned about', async (t) => {
  const { request } = await buildTestApp(t)
  const body = { metadata: { name: 'ep' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] }
  const calls = [
    await request({ method: 'POST', url: ENDPOINTS, payload: body }),
    await request({ method: 'GET', url: ENDPOINTS }),
    await request({ method: 'GET', url: '/api/v1/endpoints' }),
    await request({ method: 'GET', url: `${ENDPOINTS}/ep` }),
    await request({ method: 'PATCH', url: `${ENDPOINTS}/ep`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { metadata: { labels: { a: 'b' } } } }),
    await request({ method: 'GET', url: `${ENDPOINTS}/nosuch` }),
    await request({ method: 'DELETE', url: `${ENDPOINTS}/ep` })
  ]
  assert.deepEqual(calls.map(c => c.statusCode), [201, 200, 200, 200, 200, 404, 200])
  for (const c of calls) assert.equal(c.headers.warning, `299 - ${JSON.stringify(TEXT)}`)
  const slices = await request({ method: 'GET', url: `/apis/${GROUPS.discovery}/v1/namespaces/default/endpointslices` })
  assert.equal(slices.statusCode, 200)
  assert.equal(slices.headers.warning, undefined)
  assert.equal((await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps' })).headers.warning, undefined)
})

test('kubectl shows the warning', { skip: hasKubectl('1.33') ? false : 'no kubectl 1.33 installed' }, async (t) => {
  const server = await startServer(t)
  const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33', home: join(server.dataDir, 'home') })
  const applied = await kubectl.run(['apply', '-f', '-'], 'apiVersion: v1\nkind: Endpoints\nmetadata: {name: ep}\nsubsets: [{addresses: [{ip: 10.0.0.1}], ports: [{port: 80}]}]\n')
  assert.equal(applied.code, 0, applied.stderr)
  assert.match(applied.stderr, /Warning: v1 Endpoints is deprecated/)
  const res = await kubectl.run(['get', 'endpoints', 'ep'])
  assert.equal(res.code, 0, res.stderr)
  assert.match(res.stderr, new RegExp(`Warning: ${TEXT.replaceAll('.', '\\.').replace('+', '\\+')}`))
  assert.match(res.stdout, /^ep\s+10\.0\.0\.1:80/m)
})
