// DenyServiceExternalIPs (off by default): a Service created with spec.externalIPs is refused,
// and so is an update adding one; keeping or removing them is allowed. The chain is driven with
// admission attributes directly; the inject-level case runs once the Service kind is served.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { suiteApp } from '../resources/suite.js'
import { ApiError } from '../../resources/status.js'
import { RESOURCES } from '../../resources/index.js'
import type { AnyObject, Resource } from '../../resources/define.js'
import type { AdmissionAttributes, Operation } from '../../resources/admission.js'

const SERVICES = { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true } as unknown as Resource
const servicesServed = RESOURCES.some(r => r.group === '' && r.plural === 'services')

const service = (externalIPs?: string[]): AnyObject => ({ metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ port: 80 }], ...(externalIPs === undefined ? {} : { externalIPs }) } })

function attributes (operation: Operation, object: AnyObject, oldObject?: AnyObject, resource = SERVICES, subresource = ''): AdmissionAttributes {
  return {
    operation, resource, subresource, namespace: 'default', name: 'web', object, oldObject, user: { username: 'alice', groups: ['system:authenticated'] },
    dryRun: false, warnings: [], auditAnnotations: {}, lookup: async (gr, _ns, name) => gr.resource === 'namespaces' ? { metadata: { name }, status: { phase: 'Active' } } : undefined, list: () => [], listConsistent: async () => [], listRecent: async () => []
  }
}

describe('DenyServiceExternalIPs', () => {
  const app = suiteApp({ admission: { enable: ['DenyServiceExternalIPs'] } })
  const validate = (a: AdmissionAttributes) => app().app.admission.validate(a)
  const refused = async (a: AdmissionAttributes) => {
    await assert.rejects(validate(a), (err: unknown) => {
      assert.ok(err instanceof ApiError)
      assert.equal(err.code, 403)
      assert.equal(err.status.reason, 'Forbidden')
      assert.equal(err.status.message, 'services "web" is forbidden: Use of external IPs is denied by admission control')
      return true
    })
  }

  it('is off by default', async (t) => {
    const plain = await buildTestApp(t)
    assert.ok(!plain.app.admission.enabled().includes('DenyServiceExternalIPs'))
    await plain.app.admission.validate(attributes('CREATE', service(['192.0.2.1'])))
  })

  it('refuses a create with external IPs and allows one without', async () => {
    await refused(attributes('CREATE', service(['192.0.2.1'])))
    await validate(attributes('CREATE', service()))
    await validate(attributes('CREATE', service([])))
  })

  it('refuses an update that adds an external IP, allows keeping or removing them', async () => {
    await refused(attributes('UPDATE', service(['192.0.2.1', '192.0.2.2']), service(['192.0.2.1'])))
    await refused(attributes('UPDATE', service(['192.0.2.1']), service()))
    await validate(attributes('UPDATE', service(['192.0.2.1']), service(['192.0.2.1', '192.0.2.2'])))
    await validate(attributes('UPDATE', service(['192.0.2.2', '192.0.2.1']), service(['192.0.2.1', '192.0.2.2'])))
    await validate(attributes('UPDATE', service(), service(['192.0.2.1'])))
  })

  it('looks at services only, and not at their subresources', async () => {
    const other = { ...SERVICES, group: 'example.com' } as Resource
    await validate(attributes('CREATE', service(['192.0.2.1']), undefined, other))
    await validate(attributes('UPDATE', service(['192.0.2.1']), service(), SERVICES, 'status'))
  })

  it('refuses a Service created with external IPs through the API', { skip: servicesServed ? false : 'the Service kind is not served on this branch' }, async () => {
    const res = await app().request({ method: 'POST', url: '/api/v1/namespaces/default/services', payload: { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }], externalIPs: ['192.0.2.1'] } } })
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().message, 'services "web" is forbidden: Use of external IPs is denied by admission control')
  })
})
