// The status subresource: the main resource never changes status, /status changes nothing else.
import assert from 'node:assert/strict'
import type { AnyObject } from '../../resources/define.js'
import type { Behaviour } from './behaviour.js'
import { stores } from './behaviour.js'
import { contains, expectCode, getJson, readThenWrite } from './client.js'
import { itemUrl, type Subject } from './subject.js'

const hasStatus = (s: Subject): boolean => stores(s, 'create', 'get', 'update') && s.served.subresources.status !== undefined

/** The example's status, which a kind with /status must have: the status the suite writes. */
function exampleStatus (s: Subject): AnyObject {
  assert.ok(s.status !== undefined, `${s.definition.kind} has a status subresource but its example no status to write through it`)
  return s.status
}

/** The top-level fields other than type, metadata and status: what a status write must leave. */
const mainFields = (obj: AnyObject): AnyObject =>
  Object.fromEntries(Object.entries(obj).filter(([k]) => !['apiVersion', 'kind', 'metadata', 'status'].includes(k)))

export const mainResourceKeepsStatus: Behaviour = {
  name: 'keeps status on a main-resource update',
  applies: hasStatus,
  async run (s, api) {
    const status = exampleStatus(s)
    const { current, res } = await readThenWrite(api, itemUrl(s), (c) => api.request({ method: 'PUT', url: itemUrl(s), payload: { ...c, status } }))
    expectCode(res, 200)
    assert.deepEqual(res.json().status, current.status)
  }
}

export const statusWriteChangesOnlyStatus: Behaviour = {
  name: 'changes only status through /status',
  applies: hasStatus,
  async run (s, api) {
    const status = exampleStatus(s)
    // The other fields are left out: a status write takes them from the stored object.
    const { current, res } = await readThenWrite(api, itemUrl(s), (c) => api.request({
      method: 'PUT',
      url: itemUrl(s, s.name, 'status'),
      payload: { apiVersion: c.apiVersion, kind: c.kind, metadata: c.metadata, status }
    }))
    assert.ok(!contains(current.status, status), `the example's status is what a new object has already: ${JSON.stringify(current.status)}`)
    expectCode(res, 200)
    const written = res.json()
    assert.ok(contains(written.status, status), `status ${JSON.stringify(written.status)} lacks ${JSON.stringify(status)}`)
    assert.deepEqual(mainFields(written), mainFields(current))
    assert.deepEqual(mainFields(await getJson(api, itemUrl(s, s.name, 'status'))), mainFields(current))
  }
}
