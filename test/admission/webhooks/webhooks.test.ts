// Admission webhooks end to end through the server: a real HTTPS webhook (its own CA, on
// loopback) that allows, rejects, patches, warns, fails and hangs. Each test's configurations
// select only its own objects (label `case`), so they share one app.
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../../resources/suite.js'
import { allow, patchOf, startAdmissionWebhook, type AdmissionWebhookServer } from '../../helpers/admission-webhook.js'

type AnyObject = Record<string, any>
const MUTATING = '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations'
const VALIDATING = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations'
const CMS = '/api/v1/namespaces/default/configmaps'

describe('admission webhooks', () => {
  const app = suiteApp()
  let hooks: AdmissionWebhookServer
  before(async () => { hooks = await startAdmissionWebhook({ after: () => {} }) })
  let n = 0

  /** A webhook on its own path, for configmaps labelled `case: <c>`. */
  const webhook = (c: string, path: string, over: AnyObject = {}): AnyObject => ({
    name: `${path.slice(1)}.hooks.example.com`,
    clientConfig: { url: `${hooks.base}${path}`, caBundle: hooks.caBundle },
    rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    objectSelector: { matchLabels: { case: c } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...over
  })
  const configure = async (url: string, webhooks: AnyObject[]): Promise<string> => {
    const name = `cfg-${++n}`
    const res = await app().request({ method: 'POST', url, payload: { metadata: { name }, webhooks } })
    assert.equal(res.statusCode, 201, res.body)
    return name
  }
  const createCm = (c: string, name: string, extra: AnyObject = {}, query = '') =>
    app().request({ method: 'POST', url: `${CMS}${query}`, payload: { metadata: { name, labels: { case: c } }, data: { a: '1' }, ...extra } })

  it('rejects with the webhook\'s code and message, 400 when it gives no code', async () => {
    hooks.handle('/deny-403', () => ({ allowed: false, status: { code: 403, message: 'configmaps named bad are not welcome' } }))
    hooks.handle('/deny-plain', () => ({ allowed: false }))
    await configure(VALIDATING, [webhook('deny', '/deny-403')])
    const res = await createCm('deny', 'bad')
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().kind, 'Status')
    assert.equal(res.json().message, 'admission webhook "deny-403.hooks.example.com" denied the request: configmaps named bad are not welcome')
    await configure(VALIDATING, [webhook('deny-plain', '/deny-plain')])
    const plain = await createCm('deny-plain', 'bad2')
    assert.equal(plain.statusCode, 400)
    assert.equal(plain.json().message, 'admission webhook "deny-plain.hooks.example.com" denied the request without explanation')
    assert.equal((await app().request({ method: 'GET', url: `${CMS}/bad` })).statusCode, 404)
  })

  it('sends an AdmissionReview with every request field: CREATE, PATCH as UPDATE, DELETE', async () => {
    await configure(VALIDATING, [webhook('fields', '/fields', { admissionReviewVersions: ['v2', 'v1beta1', 'v1'] })])
    assert.equal((await createCm('fields', 'f1')).statusCode, 201)
    const patch = await app().request({ method: 'PATCH', url: `${CMS}/f1`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ data: { b: '2' } }) })
    assert.equal(patch.statusCode, 200, patch.body)
    assert.equal((await app().request({ method: 'DELETE', url: `${CMS}/f1` })).statusCode, 200)
    const [create, update, del] = hooks.on('/fields').map(r => r.review)
    assert.equal(create!.apiVersion, 'admission.svc.io/v1beta1', 'the first version of the list this server speaks')
    assert.equal(create!.kind, 'AdmissionReview')
    const rq = create!.request
    assert.match(rq.uid, /^[0-9a-f-]{36}$/)
    assert.deepEqual(rq.kind, { group: '', version: 'v1', kind: 'ConfigMap' })
    assert.deepEqual(rq.resource, { group: '', version: 'v1', resource: 'configmaps' })
    assert.deepEqual(rq.requestKind, rq.kind)
    assert.deepEqual(rq.requestResource, rq.resource)
    assert.equal(rq.name, 'f1')
    assert.equal(rq.namespace, 'default')
    assert.equal(rq.operation, 'CREATE')
    assert.equal(rq.userInfo.username, 'admin')
    assert.equal(rq.userInfo.uid, 'uid-admin')
    assert.ok(rq.userInfo.groups.includes('system:masters'))
    assert.equal(rq.object.metadata.name, 'f1')
    assert.equal(rq.oldObject, null)
    assert.equal(rq.dryRun, false)
    assert.equal(rq.options.kind, 'CreateOptions')
    assert.equal(update!.request.operation, 'UPDATE')
    assert.equal(update!.request.options.kind, 'UpdateOptions')
    assert.equal(update!.request.object.data.b, '2')
    assert.equal(update!.request.oldObject.data.b, undefined)
    assert.equal(del!.request.operation, 'DELETE')
    assert.equal(del!.request.object, null)
    assert.equal(del!.request.oldObject.metadata.name, 'f1')
    assert.equal(del!.request.options.kind, 'DeleteOptions')
    assert.equal(hooks.on('/fields')[0]!.query.get('timeout'), '10s')
    assert.equal(hooks.on('/fields')[0]!.headers['content-type'], 'application/json')
  })

  it('applies a mutating webhook\'s JSON patch and keeps its audit annotations', async () => {
    hooks.handle('/add-label', () => patchOf([{ op: 'add', path: '/metadata/labels/stamped', value: 'yes' }]))
    await configure(MUTATING, [webhook('mutate', '/add-label')])
    let seen: Record<string, string> | undefined
    app().app.admission.add({ name: 'test:audit', alwaysOn: true, handles: (a) => a.name === 'm1', validate: (a) => { seen = { ...a.auditAnnotations } } })
    const res = await createCm('mutate', 'm1')
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().metadata.labels.stamped, 'yes')
    const stored = await app().request({ method: 'GET', url: `${CMS}/m1` })
    assert.equal(stored.json().metadata.labels.stamped, 'yes')
    const key = Object.keys(seen!).find(k => k.startsWith('mutation.webhook.admission.svc.io/round_0_index_'))
    assert.ok(key, JSON.stringify(seen))
    assert.deepEqual(JSON.parse(seen![key]!), { configuration: JSON.parse(seen![key]!).configuration, webhook: 'add-label.hooks.example.com', mutated: true })
    const patchKey = key.replace('mutation.', 'patch.')
    assert.deepEqual(JSON.parse(seen![patchKey]!).patch, [{ op: 'add', path: '/metadata/labels/stamped', value: 'yes' }])
    assert.equal(JSON.parse(seen![patchKey]!).patchType, 'JSONPatch')
  })

  it('passes webhook warnings to the client as Warning headers', async () => {
    hooks.handle('/warn', () => allow({ warnings: ['this configmap is deprecated', 'x'.repeat(300)] }))
    await configure(VALIDATING, [webhook('warn', '/warn')])
    const res = await createCm('warn', 'w1')
    assert.equal(res.statusCode, 201)
    const warnings = ([] as string[]).concat(res.headers.warning as string | string[])
    assert.ok(warnings.includes('299 - "this configmap is deprecated"'), JSON.stringify(warnings))
    assert.equal(warnings.length, 2)
  })

  it('answers the warnings of a webhook that denies the request, beside the refusal', async () => {
    hooks.handle('/warn-deny', () => ({ allowed: false, status: { code: 403, message: 'not today' }, warnings: ['try again tomorrow'] }))
    await configure(VALIDATING, [webhook('warn-deny', '/warn-deny')])
    const res = await createCm('warn-deny', 'wd1')
    assert.equal(res.statusCode, 403)
    assert.deepEqual(([] as string[]).concat(res.headers.warning as string | string[]), ['299 - "try again tomorrow"'])
  })

  it('follows failurePolicy on a webhook error: Fail is a 500 naming the webhook, Ignore goes on', async () => {
    hooks.handle('/boom', () => ({ raw: { status: 500, body: '{}' } }))
    await configure(VALIDATING, [webhook('fail', '/boom')])
    const failed = await createCm('fail', 'e1')
    assert.equal(failed.statusCode, 500)
    assert.equal(failed.json().reason, 'InternalError')
    assert.match(failed.json().message, /^Internal error occurred: failed calling webhook "boom.hooks.example.com": failed to call webhook: /)
    await configure(VALIDATING, [webhook('ignore', '/boom', { failurePolicy: 'Ignore', name: 'boom-ignored.hooks.example.com' })])
    assert.equal((await createCm('ignore', 'e2')).statusCode, 201)
  })

  it('keeps the connection alive between calls, and calls again when the webhook closed it', async () => {
    await configure(VALIDATING, [webhook('keepalive', '/keepalive')])
    assert.equal((await createCm('keepalive', 'k1')).statusCode, 201)
    assert.equal((await createCm('keepalive', 'k2')).statusCode, 201)
    const [first, second] = hooks.on('/keepalive')
    assert.equal(first!.headers.connection, 'keep-alive')
    assert.equal(second!.remotePort, first!.remotePort, 'the second call on the first one\'s connection')
    hooks.closeIdle()
    assert.equal((await createCm('keepalive', 'k3')).statusCode, 201)
    assert.equal(hooks.on('/keepalive').length, 3)
  })

  it('times out after the webhook\'s own timeoutSeconds', async () => {
    hooks.handle('/hang', () => 'hang')
    await configure(VALIDATING, [webhook('hang', '/hang', { timeoutSeconds: 1 })])
    const res = await createCm('hang', 'h1')
    assert.equal(res.statusCode, 500)
    assert.match(res.json().message, /failed calling webhook "hang.hooks.example.com".*timed out/)
    assert.equal(hooks.on('/hang')[0]!.query.get('timeout'), '1s')
    await configure(VALIDATING, [webhook('hang-ignore', '/hang', { timeoutSeconds: 1, failurePolicy: 'Ignore', name: 'hang-ignored.hooks.example.com' })])
    assert.equal((await createCm('hang-ignore', 'h2')).statusCode, 201)
  })

  it('treats a wrong uid, a wrong apiVersion and a body that is not JSON as call errors', async () => {
    hooks.handle('/wrong-uid', () => ({ uid: 'not-the-one', allowed: true }))
    hooks.handle('/wrong-version', () => ({ raw: { status: 200, body: JSON.stringify({ apiVersion: 'admission.svc.io/v2', kind: 'AdmissionReview', response: { allowed: true } }) } }))
    hooks.handle('/not-json', () => ({ raw: { status: 200, body: 'hello' } }))
    for (const [c, path, pattern] of [['uid', '/wrong-uid', /expected response.uid=/], ['version', '/wrong-version', /expected webhook response of admission.svc.io\/v1/], ['json', '/not-json', /not JSON/]] as const) {
      await configure(VALIDATING, [webhook(`bad-${c}`, path)])
      const res = await createCm(`bad-${c}`, `bad-${c}`)
      assert.equal(res.statusCode, 500, res.body)
      assert.match(res.json().message, pattern)
    }
  })

  it('treats an answer over 3 MiB as a call error', async () => {
    hooks.handle('/huge', (review) => ({ raw: { status: 200, body: JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true, warnings: ['x'.repeat(4 * 1024 * 1024)] } }) } }))
    await configure(VALIDATING, [webhook('huge', '/huge')])
    const res = await createCm('huge', 'huge')
    assert.equal(res.statusCode, 500, res.body.slice(0, 300))
    assert.match(res.json().message, /larger than 3145728 bytes/)
  })

  it('fails with 500 on a patch that cannot be applied, even under failurePolicy Ignore', async () => {
    hooks.handle('/bad-patch', () => patchOf([{ op: 'replace', path: '/nothing/here', value: 1 }]))
    await configure(MUTATING, [webhook('bad-patch', '/bad-patch', { failurePolicy: 'Ignore' })])
    const res = await createCm('bad-patch', 'p1')
    assert.equal(res.statusCode, 500, res.body)
    assert.match(res.json().message, /bad-patch.hooks.example.com/)
  })

  it('sends dryRun true and stores nothing', async () => {
    await configure(VALIDATING, [webhook('dry', '/dry', { sideEffects: 'NoneOnDryRun' })])
    const res = await createCm('dry', 'd1', {}, '?dryRun=All')
    assert.equal(res.statusCode, 201, res.body)
    const review = hooks.on('/dry')[0]!.review
    assert.equal(review.request.dryRun, true)
    assert.deepEqual(review.request.options.dryRun, ['All'])
    assert.equal((await app().request({ method: 'GET', url: `${CMS}/d1` })).statusCode, 404)
  })

  it('calls mutating webhooks in order, then reinvokes an IfNeeded webhook a later one changed the object for', async () => {
    hooks.handle('/first', () => allow())
    hooks.handle('/second', (review) => review.request.object.metadata.labels.second === undefined
      ? patchOf([{ op: 'add', path: '/metadata/labels/second', value: 'done' }])
      : allow())
    hooks.handle('/never', () => allow())
    await configure(MUTATING, [
      webhook('reinvoke', '/first', { reinvocationPolicy: 'IfNeeded' }),
      webhook('reinvoke', '/second'),
      webhook('reinvoke', '/never', { reinvocationPolicy: 'Never' })
    ])
    const res = await createCm('reinvoke', 'r1')
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().metadata.labels.second, 'done')
    assert.equal(hooks.on('/first').length, 2, 'IfNeeded: called again after /second changed the object')
    assert.equal(hooks.on('/first')[1]!.review.request.object.metadata.labels.second, 'done')
    assert.equal(hooks.on('/second').length, 1)
    assert.equal(hooks.on('/never').length, 1)
  })

  it('reinvokes an IfNeeded webhook whose first call failed and was ignored, as the reference does', async () => {
    hooks.handle('/flaky', (review) => review.request.object.metadata.labels.later === undefined ? { raw: { status: 500, body: '{}' } } : allow())
    hooks.handle('/later', (review) => review.request.object.metadata.labels.later === undefined
      ? patchOf([{ op: 'add', path: '/metadata/labels/later', value: 'done' }])
      : allow())
    await configure(MUTATING, [
      webhook('flaky', '/flaky', { reinvocationPolicy: 'IfNeeded', failurePolicy: 'Ignore' }),
      webhook('flaky', '/later')
    ])
    assert.equal((await createCm('flaky', 'fl1')).statusCode, 201)
    assert.equal(hooks.on('/flaky').length, 2)
  })

  it('re-runs the built-in mutating plugins after a webhook changed the object', async () => {
    hooks.handle('/strip-finalizers', (review) => (review.request.object.metadata.finalizers ?? []).length > 0
      ? patchOf([{ op: 'remove', path: '/metadata/finalizers' }])
      : allow())
    await configure(MUTATING, [webhook('builtins', '/strip-finalizers', { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['persistentvolumeclaims'] }] })])
    const res = await app().request({
      method: 'POST', url: '/api/v1/namespaces/default/persistentvolumeclaims',
      payload: { metadata: { name: 'claim', labels: { case: 'builtins' } }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', resources: { requests: { storage: '1Gi' } } } }
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().metadata.finalizers, ['svc.io/pvc-protection'])
    assert.equal(hooks.on('/strip-finalizers').length, 1)
  })

  it('matches namespaceSelector against the namespace\'s labels', async () => {
    await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'team-a', labels: { webhooks: 'on' } } } })
    await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'team-b' } } })
    hooks.handle('/ns-deny', () => ({ allowed: false, status: { message: 'no' } }))
    await configure(VALIDATING, [webhook('ns', '/ns-deny', { namespaceSelector: { matchLabels: { webhooks: 'on' } } })])
    const inA = await app().request({ method: 'POST', url: '/api/v1/namespaces/team-a/configmaps', payload: { metadata: { name: 'x', labels: { case: 'ns' } } } })
    assert.equal(inA.statusCode, 400)
    const inB = await app().request({ method: 'POST', url: '/api/v1/namespaces/team-b/configmaps', payload: { metadata: { name: 'x', labels: { case: 'ns' } } } })
    assert.equal(inB.statusCode, 201, inB.body)
  })

  it('takes a configuration change into force for the next request, and stops calling a deleted one', async () => {
    hooks.handle('/toggle', () => ({ allowed: false, status: { message: 'toggled on' } }))
    const name = await configure(VALIDATING, [webhook('toggle', '/toggle')])
    assert.equal((await createCm('toggle', 't1')).statusCode, 400)
    assert.equal((await app().request({ method: 'DELETE', url: `${VALIDATING}/${name}` })).statusCode, 200)
    assert.equal((await createCm('toggle', 't2')).statusCode, 201)
  })

  it('matchPolicy Equivalent sends a request to a webhook registered for an equivalent group, converted; Exact does not', async () => {
    const rbacRule = [{ operations: ['CREATE'], apiGroups: ['rbac.authorization.k8s.io'], apiVersions: ['v1'], resources: ['roles'] }]
    hooks.handle('/equivalent', () => patchOf([{ op: 'add', path: '/metadata/labels/seen', value: 'equivalent' }]))
    await configure(MUTATING, [
      webhook('equivalent', '/equivalent', { rules: rbacRule }),
      webhook('equivalent', '/exact', { rules: rbacRule, matchPolicy: 'Exact' })
    ])
    const res = await app().request({ method: 'POST', url: '/apis/rbac.authorization.svc.io/v1/namespaces/default/roles', payload: { metadata: { name: 'reader', labels: { case: 'equivalent' } }, rules: [] } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().apiVersion, 'rbac.authorization.svc.io/v1')
    assert.equal(res.json().metadata.labels.seen, 'equivalent')
    assert.equal(hooks.on('/exact').length, 0)
    const rq = hooks.on('/equivalent')[0]!.review.request
    assert.deepEqual(rq.kind, { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' })
    assert.deepEqual(rq.resource, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles' })
    assert.deepEqual(rq.requestKind, { group: 'rbac.authorization.svc.io', version: 'v1', kind: 'Role' })
    assert.equal(rq.object.apiVersion, 'rbac.authorization.k8s.io/v1')
  })

  it('never calls webhooks about webhook configurations', async () => {
    hooks.handle('/everything', () => ({ allowed: false, status: { message: 'no' } }))
    await configure(VALIDATING, [webhook('any', '/everything', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], objectSelector: { matchLabels: { case: 'exempt' } } })])
    const res = await app().request({ method: 'POST', url: VALIDATING, payload: { metadata: { name: 'exempt', labels: { case: 'exempt' } }, webhooks: [] } })
    assert.equal(res.statusCode, 201, res.body)
  })

  it('counts rejections in apiserver_admission_webhook_rejection_count', async () => {
    const text = (await app().request({ method: 'GET', url: '/metrics' })).body
    assert.match(text, /apiserver_admission_webhook_rejection_count\{name="deny-403.hooks.example.com",operation="CREATE",type="validating",error_type="no_error",rejection_code="403"\} 1/)
    assert.match(text, /name="boom.hooks.example.com",operation="CREATE",type="validating",error_type="calling_webhook_error",rejection_code="0"\} 1/)
    assert.match(text, /name="bad-patch.hooks.example.com",operation="CREATE",type="admit",error_type="apiserver_internal_error",rejection_code="0"\} 1/)
  })
})
