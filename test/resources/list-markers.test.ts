// The list markers OpenAPI and strategic merge patch read, as upstream sets them.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { RESOURCES } from '../../resources/index.js'

type Schema = Record<string, any>

/** The schema at a dotted path of properties; `[]` steps into array items. */
function at (schema: Schema, path: string): Schema {
  let s = schema
  for (const part of path.split('.')) {
    s = part === '[]' ? s.items : s.properties[part]
    assert.ok(s !== undefined, `no ${path}`)
  }
  return s
}

const markers = (s: Schema) => Object.fromEntries(Object.entries(s).filter(([k]) => k.startsWith('x-kubernetes-')))
const kind = (k: string) => RESOURCES.find(r => r.kind === k)!.schema as Schema
const map = (keys: string[], strategy = 'merge') => ({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, 'x-kubernetes-patch-merge-key': keys[0], 'x-kubernetes-patch-strategy': strategy })

const cases: Array<[string, string, Record<string, unknown>]> = [
  ['Pod', 'spec.volumes', map(['name'], 'merge,retainKeys')],
  ['Pod', 'spec.containers', map(['name'])],
  ['Pod', 'spec.containers.[].env', map(['name'])],
  ['Pod', 'spec.containers.[].volumeMounts', map(['mountPath'])],
  ['Pod', 'spec.containers.[].ports', map(['containerPort', 'protocol'])],
  ['Pod', 'spec.tolerations', { 'x-kubernetes-list-type': 'atomic' }],
  ['Pod', 'spec.volumes.[].configMap.items', { 'x-kubernetes-list-type': 'atomic' }],
  ['Pod', 'spec.volumes.[].projected.sources', { 'x-kubernetes-list-type': 'atomic' }],
  ['Pod', 'status.conditions', map(['type'])],
  ['Node', 'spec.taints', { 'x-kubernetes-list-type': 'atomic' }],
  ['Node', 'status.addresses', map(['type'])],
  ['PersistentVolumeClaim', 'spec.accessModes', { 'x-kubernetes-list-type': 'atomic' }],
  ['PersistentVolumeClaim', 'spec.selector', { 'x-kubernetes-map-type': 'atomic' }],
  ['PersistentVolumeClaim', 'status.conditions', map(['type'])],
  ['PersistentVolume', 'spec.claimRef', { 'x-kubernetes-map-type': 'atomic' }],
  ['PersistentVolume', 'spec.mountOptions', { 'x-kubernetes-list-type': 'atomic' }],
  ['StorageClass', 'allowedTopologies', { 'x-kubernetes-list-type': 'atomic' }],
  ['CSIDriver', 'spec.tokenRequests', { 'x-kubernetes-list-type': 'atomic' }],
  ['CSIDriver', 'spec.volumeLifecycleModes', { 'x-kubernetes-list-type': 'set' }],
  ['CSINode', 'spec.drivers', map(['name'])]
]

describe('list markers', () => {
  for (const [k, path, want] of cases) {
    it(`marks ${k} ${path}`, () => { assert.deepEqual(markers(at(kind(k), path)), want) })
  }
})
