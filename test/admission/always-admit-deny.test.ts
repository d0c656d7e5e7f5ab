// AlwaysAdmit and AlwaysDeny: deprecated, off by default, a warning at start when enabled;
// AlwaysDeny refuses every create, update and delete.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { deprecationWarning } from '../../admission/index.js'

const configmaps = '/api/v1/namespaces/default/configmaps'

/** A logger that keeps the warnings the app logs. */
const warningLog = () => {
  const lines: string[] = []
  return { lines, logger: { level: 'warn', stream: { write: (line: string) => { lines.push(JSON.parse(line).msg) } } } }
}

describe('AlwaysAdmit and AlwaysDeny', () => {
  it('run, with the other plugins of this family, in the reference server\'s order (AllOrderedPlugins)', async (t) => {
    const reference = ['AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists', 'StorageObjectInUseProtection',
      'OwnerReferencesPermissionEnforcement', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'DenyServiceExternalIPs',
      'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'AlwaysDeny']
    const enable = ['AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceExists', 'OwnerReferencesPermissionEnforcement', 'DenyServiceExternalIPs', 'AlwaysDeny']
    const { app } = await buildTestApp(t, { admission: { enable } })
    assert.deepEqual(app.admission.enabled().filter(n => reference.includes(n)), reference)
  })

  it('are off by default and warn of nothing', async (t) => {
    const log = warningLog()
    const { app } = await buildTestApp(t, { logger: log.logger })
    assert.ok(!app.admission.enabled().includes('AlwaysAdmit'))
    assert.ok(!app.admission.enabled().includes('AlwaysDeny'))
    assert.ok(!log.lines.some(l => l.includes('deprecated')), log.lines.join('\n'))
  })

  it('AlwaysAdmit admits and warns at start', async (t) => {
    const log = warningLog()
    const api = await buildTestApp(t, { logger: log.logger, admission: { enable: ['AlwaysAdmit'] } })
    assert.ok(api.app.admission.enabled().includes('AlwaysAdmit'))
    assert.ok(log.lines.includes(deprecationWarning('AlwaysAdmit')), log.lines.join('\n'))
    assert.equal(deprecationWarning('AlwaysAdmit'), 'AlwaysAdmit admission controller is deprecated. Please remove this controller from your configuration files and scripts.')
    const res = await api.request({ method: 'POST', url: configmaps, payload: { metadata: { name: 'admitted' } } })
    assert.equal(res.statusCode, 201, res.body)
  })

  it('AlwaysDeny refuses creates, updates and deletes, lets reads through, and warns at start', async (t) => {
    const log = warningLog()
    const open = await buildTestApp(t)
    await open.request({ method: 'POST', url: configmaps, payload: { metadata: { name: 'kept' } } })
    const api = await buildTestApp(t, { logger: log.logger, databaseUrl: open.databaseUrl, admission: { enable: ['AlwaysDeny'] } })
    assert.ok(log.lines.includes(deprecationWarning('AlwaysDeny')), log.lines.join('\n'))
    const create = await api.request({ method: 'POST', url: configmaps, payload: { metadata: { name: 'denied' } } })
    assert.equal(create.statusCode, 403, create.body)
    assert.equal(create.json().reason, 'Forbidden')
    assert.equal(create.json().message, 'configmaps "denied" is forbidden: admission control is denying all modifications')
    const update = await api.request({ method: 'PATCH', url: `${configmaps}/kept`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { data: { a: 'b' } } })
    assert.equal(update.statusCode, 403, update.body)
    const del = await api.request({ method: 'DELETE', url: `${configmaps}/kept` })
    assert.equal(del.statusCode, 403, del.body)
    assert.equal(del.json().message, 'configmaps "kept" is forbidden: admission control is denying all modifications')
    const get = await api.request({ method: 'GET', url: `${configmaps}/kept` })
    assert.equal(get.statusCode, 200, get.body)
  })
})
