// The bootstrap signer: cluster-info's kubeconfig signed for each signing token (a detached HS256
// JWS keyed by the whole token), refreshed as tokens come and go; verification insists on HS256.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { suiteApp } from '../resources/suite.js'
import { eventually } from '../helpers/eventually.js'
import { signDetached, verifyDetached } from '../../auth/bootstrap-jws.js'

const cmUrl = '/api/v1/namespaces/svc-public/configmaps'
const secretsUrl = '/api/v1/namespaces/svc-system/secrets'
const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster: {server: "https://10.0.0.1:6443"}\n'

const token = (id: string, secret: string, extra: Record<string, string> = {}) => ({
  metadata: { name: `bootstrap-token-${id}` },
  type: 'bootstrap.svc.io/token',
  stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-signing': 'true', ...extra }
})

describe('the bootstrap signer', () => {
  const app = suiteApp({ controllers: ['*', 'bootstrapsigner'] })
  const clusterInfo = async () => (await app().request({ method: 'GET', url: `${cmUrl}/cluster-info` })).json().data as Record<string, string>

  it('signs cluster-info for each signing token, and only for those', async () => {
    assert.equal((await app().request({ method: 'POST', url: cmUrl, payload: { metadata: { name: 'cluster-info' }, data: { kubeconfig: KUBECONFIG } } })).statusCode, 201)
    await app().request({ method: 'POST', url: secretsUrl, payload: token('abcdef', '0123456789abcdef') })
    await app().request({ method: 'POST', url: secretsUrl, payload: token('nosign', '0123456789abcdef', { 'usage-bootstrap-signing': 'false' }) })
    await app().request({ method: 'POST', url: secretsUrl, payload: token('expird', '0123456789abcdef', { expiration: '2000-01-01T00:00:00Z' }) })
    const data = await eventually(async () => {
      const d = await clusterInfo()
      assert.ok(d['jws-kubeconfig-abcdef'])
      return d
    })
    assert.deepEqual(Object.keys(data).sort(), ['jws-kubeconfig-abcdef', 'kubeconfig'])
    const jws = data['jws-kubeconfig-abcdef']!
    assert.match(jws, /^[\w-]+\.\.[\w-]+$/)
    assert.deepEqual(JSON.parse(Buffer.from(jws.split('.')[0]!, 'base64url').toString()), { alg: 'HS256', kid: 'abcdef' })
    assert.ok(verifyDetached(KUBECONFIG, jws, 'abcdef.0123456789abcdef'))
    assert.ok(!verifyDetached(KUBECONFIG, jws, 'abcdef.0123456789abcdee'))
    assert.ok(!verifyDetached(`${KUBECONFIG}# changed\n`, jws, 'abcdef.0123456789abcdef'))
  })

  it('re-signs when the kubeconfig changes and drops the signature of a deleted token', async () => {
    const changed = `${KUBECONFIG}current-context: ""\n`
    await app().request({ method: 'PATCH', url: `${cmUrl}/cluster-info`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { data: { kubeconfig: changed } } })
    await eventually(async () => assert.ok(verifyDetached(changed, (await clusterInfo())['jws-kubeconfig-abcdef']!, 'abcdef.0123456789abcdef')))
    await app().request({ method: 'DELETE', url: `${secretsUrl}/bootstrap-token-abcdef` })
    await eventually(async () => assert.deepEqual(Object.keys(await clusterInfo()), ['kubeconfig']))
  })

  it('verifies only HS256: a signature that claims another algorithm is refused', () => {
    const good = signDetached(KUBECONFIG, 'abcdef', '0123456789abcdef')
    assert.ok(verifyDetached(KUBECONFIG, good, 'abcdef.0123456789abcdef'))
    for (const alg of ['none', 'HS512', 'RS256']) {
      const header = Buffer.from(JSON.stringify({ alg, kid: 'abcdef' })).toString('base64url')
      const sig = createHmac('sha256', 'abcdef.0123456789abcdef').update(`${header}.${Buffer.from(KUBECONFIG).toString('base64url')}`).digest('base64url')
      assert.ok(!verifyDetached(KUBECONFIG, `${header}..${sig}`, 'abcdef.0123456789abcdef'), alg)
    }
    assert.ok(!verifyDetached(KUBECONFIG, good.replace('..', '.eA.'), 'abcdef.0123456789abcdef'))
  })
})
