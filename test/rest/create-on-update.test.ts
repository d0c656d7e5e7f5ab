// PUT creates the object for the kinds whose strategy allows it (the reference's
// AllowCreateOnUpdate: Lease, Event, the RBAC kinds, ServiceAccount, Service, LimitRange), so a
// client renewing a Lease with PUT-or-create works; for the other kinds a PUT of a missing name
// stays 404.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { RESOURCES } from '../../resources/index.js'
import type { Resource } from '../../resources/define.js'

const url = (r: Resource, name: string): string =>
  `${r.group === '' ? '/api' : `/apis/${r.group}`}/${r.version}${r.namespaced ? '/namespaces/default' : ''}/${r.plural}/${name}`

const stored = RESOURCES.filter(r => r.virtual === undefined && r.verbs.includes('update') && r.example !== undefined)

describe('PUT of a name that does not exist', () => {
  it('creates it (201) where the kind allows, and is 404 elsewhere, for every kind of the list', async (t) => {
    const api = await buildTestApp(t)
    const creating = stored.filter(r => r.strategy.allowCreateOnUpdate === true).map(r => r.kind).sort()
    assert.deepEqual(creating, ['ClusterRole', 'ClusterRoleBinding', 'Endpoints', 'Event', 'Lease', 'LimitRange', 'Role', 'RoleBinding', 'Service', 'ServiceAccount'])
    for (const r of stored) {
      const name = `put-${r.plural}`
      const body: Record<string, unknown> = { ...structuredClone(r.example!), apiVersion: r.apiVersion, kind: r.kind, metadata: { ...r.example!.metadata, name } }
      delete body.status
      const res = await api.request({ method: 'PUT', url: url(r, name), payload: body })
      if (r.strategy.allowCreateOnUpdate === true) {
        assert.equal(res.statusCode, 201, `${r.kind}: ${res.body}`)
        assert.equal((await api.request({ method: 'GET', url: url(r, name) })).statusCode, 200, r.kind)
      } else {
        assert.equal(res.statusCode, 404, `${r.kind}: ${res.body}`)
      }
    }
  })
})
