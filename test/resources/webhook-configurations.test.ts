// MutatingWebhookConfiguration and ValidatingWebhookConfiguration: every validation rule of the
// spec's table, and the defaults, on the wire.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const mutating = '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations'
const validating = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations'

type Obj = Record<string, any>
const hook = (over: Obj = {}): Obj => ({
  name: 'check.example.com',
  clientConfig: { url: 'https://hooks.example.com/check' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...over
})

describe('webhook configurations', () => {
  const app = suiteApp()
  let n = 0
  const post = (url: string, webhooks: Obj[], name = `c${++n}`) => app().request({ method: 'POST', url, payload: { metadata: { name }, webhooks } })

  const cases: Array<{ name: string, webhooks: Obj[], field?: string, reason?: string, message?: string }> = [
    { name: 'a plain webhook', webhooks: [hook()] },
    { name: 'a service reference', webhooks: [hook({ clientConfig: { service: { namespace: 'hooks', name: 'checker' } } })] },
    { name: 'rules with every wildcard form', webhooks: [hook({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*', '*/status'], scope: 'Namespaced' }, { operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*'] }, { operations: ['DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] })] },
    { name: 'a webhook name of two segments', webhooks: [hook({ name: 'example.com' })], field: 'webhooks[0].name', message: 'at least three segments' },
    { name: 'a webhook name that is not a DNS subdomain', webhooks: [hook({ name: 'Check.Example.com' })], field: 'webhooks[0].name', reason: 'FieldValueInvalid' },
    { name: 'duplicate webhook names', webhooks: [hook(), hook()], field: 'webhooks[1].name', reason: 'FieldValueDuplicate' },
    { name: 'an http url', webhooks: [hook({ clientConfig: { url: 'http://hooks.example.com/' } })], field: 'webhooks[0].clientConfig.url', message: "'https' is the only allowed URL scheme" },
    { name: 'a url with user information', webhooks: [hook({ clientConfig: { url: 'https://u:p@hooks.example.com/' } })], field: 'webhooks[0].clientConfig.url', message: 'user information is not permitted' },
    { name: 'a url with a fragment', webhooks: [hook({ clientConfig: { url: 'https://hooks.example.com/#x' } })], field: 'webhooks[0].clientConfig.url', message: 'fragments are not permitted' },
    { name: 'a url with a query', webhooks: [hook({ clientConfig: { url: 'https://hooks.example.com/?a=b' } })], field: 'webhooks[0].clientConfig.url', message: 'query parameters are not permitted' },
    { name: 'both url and service', webhooks: [hook({ clientConfig: { url: 'https://a.example.com/', service: { namespace: 'a', name: 'b' } } })], field: 'webhooks[0].clientConfig', reason: 'FieldValueRequired', message: 'exactly one of url or service is required' },
    { name: 'neither url nor service', webhooks: [hook({ clientConfig: {} })], field: 'webhooks[0].clientConfig', reason: 'FieldValueRequired' },
    // The reference passes name and namespace to ValidateWebhookService swapped, so each empty one is blamed on the other.
    { name: 'a service without namespace', webhooks: [hook({ clientConfig: { service: { namespace: '', name: 'b' } } })], field: 'webhooks[0].clientConfig.service.name', reason: 'FieldValueRequired' },
    { name: 'a service without name', webhooks: [hook({ clientConfig: { service: { namespace: 'a', name: '' } } })], field: 'webhooks[0].clientConfig.service.namespace', reason: 'FieldValueRequired' },
    { name: 'a service path without a slash', webhooks: [hook({ clientConfig: { service: { namespace: 'a', name: 'b', path: 'x' } } })], field: 'webhooks[0].clientConfig.service.path', message: "must start with a '/'" },
    { name: 'a service port out of range', webhooks: [hook({ clientConfig: { service: { namespace: 'a', name: 'b', port: 70000 } } })], field: 'webhooks[0].clientConfig.service.port' },
    { name: 'a caBundle that is not base64', webhooks: [hook({ clientConfig: { url: 'https://a.example.com/', caBundle: '***' } })], field: 'webhooks[0].clientConfig.caBundle' },
    { name: 'no admissionReviewVersions', webhooks: [hook({ admissionReviewVersions: undefined })], field: 'webhooks[0].admissionReviewVersions', reason: 'FieldValueRequired' },
    { name: 'only unsupported admissionReviewVersions', webhooks: [hook({ admissionReviewVersions: ['v2'] })], field: 'webhooks[0].admissionReviewVersions', message: 'must include at least one of v1, v1beta1' },
    { name: 'duplicate admissionReviewVersions', webhooks: [hook({ admissionReviewVersions: ['v1', 'v1'] })], field: 'webhooks[0].admissionReviewVersions[1]', reason: 'FieldValueInvalid', message: 'duplicate version' },
    { name: 'no sideEffects', webhooks: [hook({ sideEffects: undefined })], field: 'webhooks[0].sideEffects', reason: 'FieldValueRequired' },
    { name: 'sideEffects Unknown', webhooks: [hook({ sideEffects: 'Unknown' })], field: 'webhooks[0].sideEffects', reason: 'FieldValueNotSupported' },
    { name: 'timeoutSeconds 0', webhooks: [hook({ timeoutSeconds: 0 })], field: 'webhooks[0].timeoutSeconds', message: 'between 1 and 30 seconds' },
    { name: 'timeoutSeconds 31', webhooks: [hook({ timeoutSeconds: 31 })], field: 'webhooks[0].timeoutSeconds', message: 'between 1 and 30 seconds' },
    { name: 'failurePolicy Maybe', webhooks: [hook({ failurePolicy: 'Maybe' })], field: 'webhooks[0].failurePolicy', reason: 'FieldValueNotSupported' },
    { name: 'matchPolicy Fuzzy', webhooks: [hook({ matchPolicy: 'Fuzzy' })], field: 'webhooks[0].matchPolicy', reason: 'FieldValueNotSupported' },
    { name: 'reinvocationPolicy Always', webhooks: [hook({ reinvocationPolicy: 'Always' })], field: 'webhooks[0].reinvocationPolicy', reason: 'FieldValueNotSupported' },
    { name: 'a rule without operations', webhooks: [hook({ rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })], field: 'webhooks[0].rules[0].operations', reason: 'FieldValueRequired' },
    { name: 'an unknown operation', webhooks: [hook({ rules: [{ operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })], field: 'webhooks[0].rules[0].operations[0]', reason: 'FieldValueNotSupported' },
    { name: '* beside other operations', webhooks: [hook({ rules: [{ operations: ['*', 'CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })], field: 'webhooks[0].rules[0].operations', message: "if '*' is present" },
    { name: 'a rule without apiGroups', webhooks: [hook({ rules: [{ operations: ['*'], apiVersions: ['v1'], resources: ['pods'] }] })], field: 'webhooks[0].rules[0].apiGroups', reason: 'FieldValueRequired' },
    { name: 'a rule without apiVersions', webhooks: [hook({ rules: [{ operations: ['*'], apiGroups: [''], resources: ['pods'] }] })], field: 'webhooks[0].rules[0].apiVersions', reason: 'FieldValueRequired' },
    { name: 'a rule without resources', webhooks: [hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'] }] })], field: 'webhooks[0].rules[0].resources', reason: 'FieldValueRequired' },
    { name: '* beside a plain resource', webhooks: [hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*', 'pods'] }] })], field: 'webhooks[0].rules[0].resources', message: "if '*' is present, must not specify other resources without subresources" },
    { name: '*/* beside another resource', webhooks: [hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/*', 'pods'] }] })], field: 'webhooks[0].rules[0].resources', message: "if '*/*' is present" },
    { name: '*/status beside pods/status', webhooks: [hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/status', 'pods/status'] }] })], field: 'webhooks[0].rules[0].resources', message: "if '*/status' is present, must not specify pods/status" },
    { name: 'an unknown scope', webhooks: [hook({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Global' }] })], field: 'webhooks[0].rules[0].scope', reason: 'FieldValueNotSupported' },
    { name: 'a match condition that does not compile', webhooks: [hook({ matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith(" }] })], field: 'webhooks[0].matchConditions[0].expression', reason: 'FieldValueInvalid' },
    { name: 'a bad selector operator', webhooks: [hook({ objectSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } })], field: 'webhooks[0].objectSelector.matchExpressions[0].operator' },
    { name: 'a bad namespace selector label', webhooks: [hook({ namespaceSelector: { matchLabels: { 'a b': 'c' } } })], field: 'webhooks[0].namespaceSelector.matchLabels' }
  ]
  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await post(mutating, c.webhooks)
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  // Each cause exactly as the reference words it (ValidateWebhookURL, ValidateWebhookService, validateAdmissionReviewVersions).
  const RFC1123_SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
  const FORM = '; desired format: https://host[/path]'
  const url = (u: string) => hook({ clientConfig: { url: u } })
  const path = (p: string) => hook({ clientConfig: { service: { namespace: 'hooks', name: 'checker', path: p } } })
  const exact: Array<{ name: string, webhook: Obj, causes: Array<[string, string, string]> }> = [
    { name: 'a url without a host', webhook: url('https:///x'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.url', `Invalid value: "": host must be specified${FORM}`]] },
    { name: 'an opaque url', webhook: url('https:hooks.example.com'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.url', `Invalid value: "": host must be specified${FORM}`]] },
    { name: 'an http url', webhook: url('http://hooks.example.com/'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.url', `Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`]] },
    { name: 'a url without a scheme', webhook: url('hooks.example.com/x'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.url', `Invalid value: "": 'https' is the only allowed URL scheme${FORM}`], ['FieldValueInvalid', 'webhooks[0].clientConfig.url', `Invalid value: "": host must be specified${FORM}`]] },
    { name: 'a url with a bad port', webhook: url('https://hooks.example.com:abc/'), causes: [['FieldValueRequired', 'webhooks[0].clientConfig.url', `Required value: url must be a valid URL: parse "https://hooks.example.com:abc/": invalid port ":abc" after host${FORM}`]] },
    { name: 'a url with a bad escape', webhook: url('https://hooks.example.com/%zz'), causes: [['FieldValueRequired', 'webhooks[0].clientConfig.url', `Required value: url must be a valid URL: parse "https://hooks.example.com/%zz": invalid URL escape "%zz"${FORM}`]] },
    { name: 'a url with user information', webhook: url('https://u:p@hooks.example.com/'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.url', 'Invalid value: "u:p": user information is not permitted in the URL']] },
    { name: 'a url with a fragment', webhook: url('https://hooks.example.com/#frag'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.url', 'Invalid value: "frag": fragments are not permitted in the URL']] },
    { name: 'a url with a query', webhook: url('https://hooks.example.com/?a=b'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.url', 'Invalid value: "a=b": query parameters are not permitted in the URL']] },
    { name: 'a url with an empty query and fragment', webhook: url('https://hooks.example.com/?#'), causes: [] },
    { name: 'a service path with an upper-case segment', webhook: path('/Validate'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.service.path', `Invalid value: "/Validate": segment[0]: ${RFC1123_SUBDOMAIN}`]] },
    { name: 'a service path with an empty segment', webhook: path('/a//b'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.service.path', 'Invalid value: "/a//b": segment[1] may not be empty']] },
    { name: 'a service path with an underscore', webhook: path('/a_b'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.service.path', `Invalid value: "/a_b": segment[0]: ${RFC1123_SUBDOMAIN}`]] },
    { name: 'the service path //', webhook: path('//'), causes: [['FieldValueInvalid', 'webhooks[0].clientConfig.service.path', 'Invalid value: "//": segment[0] may not be empty']] },
    { name: 'a service path with a trailing slash and dotted segments', webhook: path('/hooks/v1.validate/'), causes: [] },
    {
      name: 'admissionReviewVersions that are not DNS-1035 labels',
      webhook: hook({ admissionReviewVersions: ['v1', 'V2', '1beta'] }),
      causes: [
        ['FieldValueInvalid', 'webhooks[0].admissionReviewVersions[1]', "Invalid value: \"V2\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"],
        ['FieldValueInvalid', 'webhooks[0].admissionReviewVersions[2]', "Invalid value: \"1beta\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
      ]
    }
  ]
  for (const c of exact) {
    for (const [kind, base] of [['mutating', mutating], ['validating', validating]] as const) {
      it(`${c.causes.length === 0 ? 'accepts' : 'rejects'} ${c.name} (${kind}), in the reference's words`, async () => {
        const res = await post(base, [c.webhook])
        if (c.causes.length === 0) { assert.equal(res.statusCode, 201, res.body); return }
        assert.equal(res.statusCode, 422, res.body)
        assert.deepEqual(res.json().details.causes, c.causes.map(([reason, field, message]) => ({ reason, message, field })))
      })
    }
  }

  it('rejects a configuration name that is not a DNS subdomain', async () => {
    assertInvalid(await post(validating, [hook()], 'Bad_Name'), 'metadata.name')
  })

  it('fills the defaults of a mutating webhook', async () => {
    const res = await post(mutating, [hook({ clientConfig: { service: { namespace: 'hooks', name: 'checker' } } })])
    assert.equal(res.statusCode, 201, res.body)
    const w = res.json().webhooks[0]
    assert.equal(w.failurePolicy, 'Fail')
    assert.equal(w.matchPolicy, 'Equivalent')
    assert.equal(w.timeoutSeconds, 10)
    assert.equal(w.reinvocationPolicy, 'Never')
    assert.deepEqual(w.namespaceSelector, {})
    assert.deepEqual(w.objectSelector, {})
    assert.equal(w.rules[0].scope, '*')
    assert.deepEqual(w.clientConfig.service, { namespace: 'hooks', name: 'checker', path: '/', port: 443 })
  })

  it('fills the defaults of a validating webhook, without reinvocationPolicy', async () => {
    const res = await post(validating, [hook()])
    assert.equal(res.statusCode, 201, res.body)
    const w = res.json().webhooks[0]
    assert.equal(w.failurePolicy, 'Fail')
    assert.equal(w.timeoutSeconds, 10)
    assert.equal(w.reinvocationPolicy, undefined)
    assert.equal(res.json().kind, 'ValidatingWebhookConfiguration')
    assert.equal(res.json().apiVersion, 'admissionregistration.svc.io/v1')
  })

  it('drops reinvocationPolicy from a validating webhook as an unknown field, with a warning', async () => {
    const res = await post(validating, [hook({ reinvocationPolicy: 'IfNeeded' })])
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().webhooks[0].reinvocationPolicy, undefined)
    assert.match(String(res.headers.warning), /unknown field \\"webhooks\[0\]\.reinvocationPolicy\\"/)
  })

  it('is cluster scoped and listed in discovery', async () => {
    const res = await app().request({ method: 'GET', url: '/apis/admissionregistration.svc.io/v1' })
    assert.equal(res.statusCode, 200)
    const names = res.json().resources.map((r: Obj) => `${r.name}:${String(r.namespaced)}`)
    assert.ok(names.includes('mutatingwebhookconfigurations:false'))
    assert.ok(names.includes('validatingwebhookconfigurations:false'))
  })
})
