// ServiceAccount admission: the default account, a missing account refused, the projected token
// volume in every container and init container, automount off, image pull secrets, mirror pods
// and the enforce-mountable-secrets annotation.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { buildTestApp } from '../helpers/app.js'
import { MIRROR_POD_ANNOTATION, POD_SERVICE_ACCOUNT, ROOT_CA_CONFIGMAP } from '../../resources/naming.js'

const ns = 'sa-admission'
const pods = `/api/v1/namespaces/${ns}/pods`
const accounts = `/api/v1/namespaces/${ns}/serviceaccounts`
const container = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: 'nginx:1.27', ...extra })
const MOUNT_PATH = POD_SERVICE_ACCOUNT.mountPath
const VOLUME_NAME = new RegExp(`^${POD_SERVICE_ACCOUNT.volumePrefix}[bcdfghjklmnpqrstvwxz2456789]{5}$`)

describe('ServiceAccount admission', () => {
  const app = suiteApp()
  const createPod = (name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) =>
    app().request({ method: 'POST', url: pods, payload: { metadata: { name, ...metadata }, spec } })
  const createAccount = async (body: Record<string, unknown>) => {
    const res = await app().request({ method: 'POST', url: accounts, payload: body })
    assert.equal(res.statusCode, 201, res.body)
  }

  it('gives a new pod the default account (made by the controller just after the namespace) and its token volume', async () => {
    assert.equal((await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: ns } } })).statusCode, 201)
    const res = await createPod('plain', { initContainers: [container('init')], containers: [container('a'), container('b')] })
    assert.equal(res.statusCode, 201, res.body)
    const spec = res.json().spec
    assert.equal(spec.serviceAccountName, 'default')
    assert.equal(spec.serviceAccount, 'default')
    assert.equal(spec.volumes.length, 1)
    const volume = spec.volumes[0]
    assert.match(volume.name, VOLUME_NAME)
    assert.deepEqual(volume.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }
      ]
    })
    for (const c of [...spec.initContainers, ...spec.containers]) {
      assert.deepEqual(c.volumeMounts, [{ name: volume.name, readOnly: true, mountPath: MOUNT_PATH }], c.name)
    }
  })

  it('refuses a pod naming a missing account', async () => {
    const res = await createPod('lost', { serviceAccountName: 'nobody', containers: [container('a')] })
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().reason, 'Forbidden')
    assert.equal(res.json().message, `pods "lost" is forbidden: error looking up service account ${ns}/nobody: serviceaccount "nobody" not found`)
    assert.equal((await app().request({ method: 'GET', url: `${pods}/lost` })).statusCode, 404)
  })

  it('honours the deprecated serviceAccount field and copies the account\'s image pull secrets', async () => {
    await createAccount({ metadata: { name: 'builder' }, imagePullSecrets: [{ name: 'registry' }] })
    const res = await createPod('built', { serviceAccount: 'builder', containers: [container('a')] })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.serviceAccountName, 'builder')
    assert.deepEqual(res.json().spec.imagePullSecrets, [{ name: 'registry' }])
    const own = await createPod('own-pull', { serviceAccountName: 'builder', imagePullSecrets: [{ name: 'mine' }], containers: [container('a')] })
    assert.deepEqual(own.json().spec.imagePullSecrets, [{ name: 'mine' }])
  })

  it('mounts nothing when the account or the pod turns automount off; the pod decides over the account', async () => {
    await createAccount({ metadata: { name: 'quiet' }, automountServiceAccountToken: false })
    const byAccount = await createPod('quiet-account', { serviceAccountName: 'quiet', containers: [container('a')] })
    assert.equal(byAccount.statusCode, 201, byAccount.body)
    assert.equal(byAccount.json().spec.volumes, undefined)
    assert.equal(byAccount.json().spec.containers[0].volumeMounts, undefined)
    const byPod = await createPod('quiet-pod', { automountServiceAccountToken: false, containers: [container('a')] })
    assert.equal(byPod.json().spec.volumes, undefined)
    const podWins = await createPod('loud-pod', { serviceAccountName: 'quiet', automountServiceAccountToken: true, containers: [container('a')] })
    assert.match(podWins.json().spec.volumes[0].name, VOLUME_NAME)
  })

  it('keeps a container\'s own mount at the token path and reuses an existing token volume', async () => {
    const own = { name: 'mine', mountPath: MOUNT_PATH }
    const res = await createPod('own-mount', { volumes: [{ name: 'mine', emptyDir: {} }], containers: [container('a', { volumeMounts: [own] }), container('b')] })
    assert.equal(res.statusCode, 201, res.body)
    const spec = res.json().spec
    assert.deepEqual(spec.containers[0].volumeMounts, [{ name: 'mine', mountPath: MOUNT_PATH }])
    assert.equal(spec.volumes.length, 2)
    assert.equal(spec.containers[1].volumeMounts[0].name, spec.volumes[1].name)

    const allOwn = await createPod('all-own', { volumes: [{ name: 'mine', emptyDir: {} }], containers: [container('a', { volumeMounts: [own] })] })
    assert.deepEqual(allOwn.json().spec.volumes.map((v: { name: string }) => v.name), ['mine'])

    const existing = `${POD_SERVICE_ACCOUNT.volumePrefix}abcde`
    const reused = await createPod('reused', { volumes: [{ name: existing, emptyDir: {} }], containers: [container('a')] })
    assert.equal(reused.statusCode, 201, reused.body)
    assert.deepEqual(reused.json().spec.volumes, [{ name: existing, emptyDir: {} }])
    assert.equal(reused.json().spec.containers[0].volumeMounts[0].name, existing)
  })

  it('leaves updates alone', async () => {
    const current = (await app().request({ method: 'GET', url: `${pods}/quiet-pod` })).json()
    current.metadata.labels = { touched: 'yes' }
    const res = await app().request({ method: 'PUT', url: `${pods}/quiet-pod`, payload: current })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().spec.volumes, undefined)
  })

  it('leaves mirror pods unchanged and refuses those that reference accounts, secrets or tokens', async () => {
    const mirror = { annotations: { [MIRROR_POD_ANNOTATION]: 'hash' } }
    const ok = await createPod('mirror', { containers: [container('a')] }, mirror)
    assert.equal(ok.statusCode, 201, ok.body)
    assert.equal(ok.json().spec.serviceAccountName, undefined)
    assert.equal(ok.json().spec.volumes, undefined)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ serviceAccountName: 'default', containers: [container('a')] }, 'a mirror pod may not reference service accounts'],
      [{ volumes: [{ name: 's', secret: { secretName: 'x' } }], containers: [container('a')] }, 'a mirror pod may not reference secrets'],
      [{ containers: [container('a', { env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] })] }, 'a mirror pod may not reference secrets'],
      [{ volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }], containers: [container('a')] }, 'a mirror pod may not use ServiceAccountToken volume projections']
    ]
    let n = 0
    for (const [spec, message] of cases) {
      const res = await createPod(`mirror-${++n}`, spec, mirror)
      assert.equal(res.statusCode, 403, res.body)
      assert.equal(res.json().message, `pods "mirror-${n}" is forbidden: ${message}`)
    }
  })

  it('limits a pod to the account\'s secrets when the account asks for it', async () => {
    await createAccount({
      metadata: { name: 'strict', annotations: { [POD_SERVICE_ACCOUNT.enforceMountableSecrets]: 'true' } },
      secrets: [{ name: 'allowed' }],
      imagePullSecrets: [{ name: 'pull' }]
    })
    const fine = await createPod('strict-ok', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }], containers: [container('a')] })
    assert.equal(fine.statusCode, 201, fine.body)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ volumes: [{ name: 's', secret: { secretName: 'other' } }], containers: [container('a')] },
        'volume with secret.secretName="other" is not allowed because service account strict does not reference that secret'],
      [{ containers: [container('a', { env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] })] },
        'container a with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret'],
      [{ imagePullSecrets: [{ name: 'elsewhere' }], containers: [container('a')] },
        'imagePullSecrets[0].name="elsewhere" is not allowed because service account strict does not reference that imagePullSecret']
    ]
    let n = 0
    for (const [spec, message] of cases) {
      const res = await createPod(`strict-${++n}`, { serviceAccountName: 'strict', ...spec })
      assert.equal(res.statusCode, 403, res.body)
      assert.equal(res.json().message, `pods "strict-${n}" is forbidden: ${message}`)
    }
  })
})

describe('ServiceAccount admission flags', () => {
  it('is off when disabled: no default account, no volume, a missing account allowed', async (t) => {
    const other = await buildTestApp(t, { admission: { disable: ['ServiceAccount'] } })
    const res = await other.request({ method: 'POST', url: '/api/v1/namespaces/default/pods', payload: { metadata: { name: 'p' }, spec: { serviceAccountName: 'nobody', containers: [container('a')] } } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.volumes, undefined)
  })

  it('refuses unknown plugin names in either flag before the server starts', async (t) => {
    await assert.rejects(buildTestApp(t, { admission: { enable: ['ServiceAcount'] } }), /enable-admission-plugins plugin "ServiceAcount" is unknown; the known plugins are .*ServiceAccount/)
    await assert.rejects(buildTestApp(t, { admission: { disable: ['Nope'] } }), /disable-admission-plugins plugin "Nope" is unknown/)
  })
})
