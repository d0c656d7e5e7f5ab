// Field ownership records of non-apply writes, as the reference field manager keeps them: a
// create owns every field it set (server-set metadata excepted), an update moves the fields it
// changed to its manager; nodes a write brings into being are members (`.`) of its set.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { recordManagedFields } from '../../machinery/managed-fields.js'
import configmaps from '../../resources/configmaps.js'
import pods from '../../resources/pods.js'

const who = (manager: string, subresource = '') => ({ manager, apiVersion: 'v1', subresource, time: '2026-11-22T08:00:00Z' })

test('a create owns every field it set, leaves and empty objects alike, and no server-set metadata', () => {
  const obj: any = {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'a', namespace: 'ns', uid: 'u', creationTimestamp: 't', generateName: 'g', labels: { app: 'x' }, annotations: {} },
    data: { one: '1', two: '2' },
    binaryData: {},
    immutable: false
  }
  recordManagedFields(obj, undefined, who('kubectl'), configmaps.schema)
  assert.deepEqual(obj.metadata.managedFields, [{
    manager: 'kubectl',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-11-22T08:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:binaryData': {},
      'f:data': { '.': {}, 'f:one': {}, 'f:two': {} },
      'f:immutable': {},
      'f:metadata': { 'f:annotations': {}, 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {} } }
    }
  }])
  // Sorted by field name, as the reference serialises field sets.
  assert.deepEqual(Object.keys(obj.metadata.managedFields[0].fieldsV1), ['f:binaryData', 'f:data', 'f:immutable', 'f:metadata'])
})

test('a create with nothing of its own to own records no entry; a status write names the subresource', () => {
  const bare: any = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns', managedFields: [] } }
  recordManagedFields(bare, undefined, who('kubectl'), configmaps.schema)
  assert.equal('managedFields' in bare.metadata, false)
  const old: any = { metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i' }] } }
  const withStatus: any = { ...structuredClone(old), status: { phase: 'Pending' } }
  recordManagedFields(withStatus, old, who('controller', 'status'), pods.schema, true)
  assert.equal(withStatus.metadata.managedFields[0].subresource, 'status')
  assert.deepEqual(withStatus.metadata.managedFields[0].fieldsV1, { 'f:status': { '.': {}, 'f:phase': {} } })
})

test('an update moves the fields it changed to its manager and keeps the rest with their owner', () => {
  const old: any = { metadata: { name: 'a' }, data: { one: '1', two: '2' } }
  recordManagedFields(old, undefined, who('creator'), configmaps.schema)
  const next: any = { metadata: { name: 'a', managedFields: old.metadata.managedFields }, data: { one: '1', two: 'changed' } }
  recordManagedFields(next, old, { ...who('editor'), time: '2026-11-22T09:00:00Z' }, configmaps.schema)
  assert.deepEqual(next.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]), [
    ['creator', { 'f:data': { '.': {}, 'f:one': {} } }],
    ['editor', { 'f:data': { 'f:two': {} } }]
  ])
})

test('a pod create: map lists keyed by name and by containerPort+protocol, a defaulted key included', () => {
  const pod: any = {
    metadata: { name: 'p', labels: { run: 'p' } },
    spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }] }
  }
  recordManagedFields(pod, undefined, who('kubectl-run'), pods.schema, true)
  assert.deepEqual(pod.metadata.managedFields[0].fieldsV1, {
    'f:metadata': { 'f:labels': { '.': {}, 'f:run': {} } },
    'f:spec': {
      'f:containers': {
        '.': {},
        'k:{"name":"web"}': {
          '.': {},
          'f:image': {},
          'f:name': {},
          'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } }
        }
      }
    }
  })
})

test('past ten Update entries the oldest merge into ancient-changes', () => {
  let obj: any = { metadata: { name: 'a' }, data: {} }
  for (let i = 0; i < 12; i++) {
    const next: any = structuredClone(obj)
    next.data[`k${i}`] = 'v'
    recordManagedFields(next, obj, { ...who(`writer-${String(i).padStart(2, '0')}`), time: `2026-11-22T08:00:${String(i).padStart(2, '0')}Z` }, configmaps.schema)
    obj = next
  }
  const entries = obj.metadata.managedFields
  assert.equal(entries.length, 10)
  const ancient = entries.find((e: any) => e.manager === 'ancient-changes')
  assert.deepEqual(Object.keys(ancient.fieldsV1['f:data']).filter(k => k !== '.').sort(), ['f:k0', 'f:k1', 'f:k2'])
  assert.equal(ancient.time, '2026-11-22T08:00:02Z')
  assert.equal(entries.some((e: any) => ['writer-00', 'writer-01', 'writer-02'].includes(e.manager)), false)
})
