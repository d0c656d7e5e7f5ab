// Field ownership records: a create owns every field the writer set, server-owned metadata
// excepted; an update moves the fields it changed to its manager.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { recordManagedFields } from '../../plugins/rest/managed-fields.js'

const who = (manager: string, subresource = '') => ({ manager, apiVersion: 'v1', subresource, time: '2026-11-22T08:00:00Z' })

test('a create owns every field it set, leaves and empty objects alike, and no server-owned metadata', () => {
  const obj: any = {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'a', namespace: 'ns', uid: 'u', creationTimestamp: 't', generateName: 'g', labels: { app: 'x' }, annotations: {} },
    data: { one: '1', two: '2' },
    binaryData: {},
    immutable: false
  }
  recordManagedFields(obj, undefined, who('kubectl'))
  assert.deepEqual(obj.metadata.managedFields, [{
    manager: 'kubectl',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-11-22T08:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:annotations': {} },
      'f:data': { 'f:one': {}, 'f:two': {} },
      'f:binaryData': {},
      'f:immutable': {}
    }
  }])
  // Key order follows the object, as the reference server's field sets do.
  assert.deepEqual(Object.keys(obj.metadata.managedFields[0].fieldsV1), ['f:metadata', 'f:data', 'f:binaryData', 'f:immutable'])
})

test('a create with nothing of its own to own records no entry; a status create names the subresource', () => {
  const bare: any = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns', managedFields: [] } }
  recordManagedFields(bare, undefined, who('kubectl'))
  assert.equal('managedFields' in bare.metadata, false)
  const withStatus: any = { metadata: { name: 'a' }, status: { phase: 'Pending' } }
  recordManagedFields(withStatus, undefined, who('controller', 'status'))
  assert.equal(withStatus.metadata.managedFields[0].subresource, 'status')
  assert.deepEqual(withStatus.metadata.managedFields[0].fieldsV1, { 'f:status': { 'f:phase': {} } })
})

test('an update moves the fields it changed to its manager and keeps the rest with their owner', () => {
  const old: any = { metadata: { name: 'a' }, data: { one: '1', two: '2' } }
  recordManagedFields(old, undefined, who('creator'))
  const next: any = { metadata: { name: 'a', managedFields: old.metadata.managedFields }, data: { one: '1', two: 'changed' } }
  recordManagedFields(next, old, { ...who('editor'), time: 'later' })
  assert.deepEqual(next.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]), [
    ['creator', { 'f:data': { 'f:one': {} } }],
    ['editor', { 'f:data': { 'f:two': {} } }]
  ])
})
