// Field sets from schema markers, one row per list and map type; the apply merge, comparison
// and removal that build on them; FieldsV1 round trips and the path spelling of conflicts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { FieldSet, pathString } from '../../machinery/field-set.js'
import { compare, createdFields, mergeApplied, removeFields, toFieldSet } from '../../machinery/typed-value.js'
import { emptyObject, withoutManagedFields } from '../../machinery/managed-fields.js'
import pods from '../../resources/pods.js'
import serviceaccounts from '../../resources/serviceaccounts.js'

const item = Type.Object({ name: Type.String(), port: Type.Optional(Type.Integer()), proto: Type.Optional(Type.String({ default: 'TCP' })), v: Type.Optional(Type.String()) })
const schema = Type.Object({
  atomicList: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
  plainList: Type.Optional(Type.Array(Type.String())),
  setList: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' })),
  mapList: Type.Optional(Type.Array(item, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })),
  twoKeys: Type.Optional(Type.Array(item, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'proto'] })),
  mergeKeyList: Type.Optional(Type.Array(item, { 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' })),
  granularMap: Type.Optional(Type.Record(Type.String(), Type.String())),
  atomicMap: Type.Optional(Type.Record(Type.String(), Type.String(), { 'x-kubernetes-map-type': 'atomic' })),
  struct: Type.Optional(Type.Object({ a: Type.Optional(Type.String()), b: Type.Optional(Type.Object({ c: Type.Optional(Type.String()) })) })),
  atomicStruct: Type.Optional(Type.Object({ a: Type.Optional(Type.String()) }, { 'x-kubernetes-map-type': 'atomic' })),
  nullableMap: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
  free: Type.Optional(Type.Unknown())
})

const rows: Array<[string, object, object]> = [
  ['atomic list: the list is one field', { atomicList: ['a', 'b'] }, { 'f:atomicList': {} }],
  ['a list without a list type is atomic', { plainList: ['a'] }, { 'f:plainList': {} }],
  ['set list: one v: member per value', { setList: ['b', 'a'] }, { 'f:setList': { 'v:"a"': {}, 'v:"b"': {} } }],
  ['map list: items by key, each a member with its fields', { mapList: [{ name: 'x', v: '1' }] },
    { 'f:mapList': { 'k:{"name":"x"}': { '.': {}, 'f:name': {}, 'f:v': {} } } }],
  ['map list with two keys, a missing key taking its default', { twoKeys: [{ port: 80 }, { port: 53, proto: 'UDP' }] },
    { 'f:twoKeys': { 'k:{"port":53,"proto":"UDP"}': { '.': {}, 'f:port': {}, 'f:proto': {} }, 'k:{"port":80,"proto":"TCP"}': { '.': {}, 'f:port': {} } } }],
  ['a patch-merge-key list without a list type is a map list', { mergeKeyList: [{ name: 'y' }] },
    { 'f:mergeKeyList': { 'k:{"name":"y"}': { '.': {}, 'f:name': {} } } }],
  ['granular map: one field per key', { granularMap: { k1: 'a', k2: 'b' } }, { 'f:granularMap': { 'f:k1': {}, 'f:k2': {} } }],
  ['atomic map: the map is one field', { atomicMap: { k1: 'a' } }, { 'f:atomicMap': {} }],
  ['granular struct: leaves only', { struct: { a: 'x', b: { c: 'y' } } }, { 'f:struct': { 'f:a': {}, 'f:b': { 'f:c': {} } } }],
  ['an empty struct is a field', { struct: { b: {} } }, { 'f:struct': { 'f:b': {} } }],
  ['atomic struct: one field', { atomicStruct: { a: 'x' } }, { 'f:atomicStruct': {} }],
  ['markers reach through a nullable union', { nullableMap: { k: 'v' } }, { 'f:nullableMap': { 'f:k': {} } }],
  ['without a schema: keys are fields, nested objects members, lists atomic', { free: { x: { y: 1 }, l: [1, 2] } },
    { 'f:free': { 'f:l': {}, 'f:x': { '.': {}, 'f:y': {} } } }]
]

for (const [name, value, fields] of rows) {
  test(`field set: ${name}`, () => {
    const set = toFieldSet(value, schema)
    assert.deepEqual(set.toFieldsV1(), fields)
    assert.ok(FieldSet.fromFieldsV1(fields).equals(set), 'FieldsV1 round trip')
  })
}

test('a kind\'s own markers: ServiceAccount secrets merge by name', () => {
  const set = toFieldSet({ secrets: [{ name: 'a' }] }, serviceaccounts.schema)
  assert.deepEqual(set.toFieldsV1(), { 'f:secrets': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} } } })
})

test('a map-list item without any key is refused with a 400', () => {
  assert.throws(() => toFieldSet({ mapList: [{ v: '1' }] }, schema), (err: any) => err.code === 400)
})

test('set algebra: union, difference, intersection keep members apart from intermediate nodes', () => {
  const a = FieldSet.of([['f:data', 'f:a'], ['f:data', 'f:b']])
  const b = FieldSet.of([['f:data', 'f:b'], ['f:data']])
  assert.deepEqual(a.union(b).toFieldsV1(), { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } })
  assert.deepEqual(a.difference(b).toFieldsV1(), { 'f:data': { 'f:a': {} } })
  assert.deepEqual(a.intersection(b).toFieldsV1(), { 'f:data': { 'f:b': {} } })
  assert.ok(a.difference(a).empty())
})

test('paths print as the reference prints them in conflicts', () => {
  assert.equal(pathString(['f:data', 'f:key']), '.data.key')
  assert.equal(pathString(['f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image']), '.spec.containers[name="web"].image')
  assert.equal(pathString(['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}']), '.ports[containerPort=80,protocol="TCP"]')
  assert.equal(pathString(['f:finalizers', 'v:"a"']), '.finalizers[="a"]')
})

test('apply merge: granular merges, atomic replaces, lists merge by key keeping live-only items in place', () => {
  const live = {
    granularMap: { a: '1', b: '2' },
    atomicMap: { a: '1', b: '2' },
    setList: ['x', 'y'],
    mapList: [{ name: 'one', v: 'live' }, { name: 'two', v: 'live' }],
    atomicList: ['p', 'q']
  }
  const config = { granularMap: { b: 'B', c: 'C' }, atomicMap: { z: '0' }, setList: ['z', 'x'], mapList: [{ name: 'three' }, { name: 'one', port: 1 }], atomicList: ['r'] }
  assert.deepEqual(mergeApplied(live, config, schema), {
    granularMap: { a: '1', b: 'B', c: 'C' },
    atomicMap: { z: '0' },
    setList: ['z', 'x', 'y'],
    mapList: [{ name: 'three' }, { name: 'one', v: 'live', port: 1 }, { name: 'two', v: 'live' }],
    atomicList: ['r']
  })
  assert.deepEqual(mergeApplied({ granularMap: { a: '1' } }, { granularMap: { a: null } }, schema), { granularMap: {} }, 'null removes')
})

test('comparison: changed leaves are modified, nodes on one side only are added or removed', () => {
  const c = compare({ granularMap: { a: '1', b: '2' } }, { granularMap: { a: 'x' }, mapList: [{ name: 'n' }] }, schema)
  assert.deepEqual(c.modified.toFieldsV1(), { 'f:granularMap': { 'f:a': {} } })
  assert.deepEqual(c.removed.toFieldsV1(), { 'f:granularMap': { 'f:b': {} } })
  assert.deepEqual(c.added.toFieldsV1(), { 'f:mapList': { '.': {}, 'k:{"name":"n"}': { '.': {}, 'f:name': {} } } })
})

test('removal: members go, an item someone still owns a part of stays, emptied maps go', () => {
  const obj = { granularMap: { a: '1' }, mapList: [{ name: 'one', v: 'x' }, { name: 'two', v: 'y' }] }
  const remove = FieldSet.of([['f:granularMap', 'f:a'], ['f:mapList', 'k:{"name":"one"}'], ['f:mapList', 'k:{"name":"two"}']])
  const keep = FieldSet.of([['f:mapList', 'k:{"name":"two"}', 'f:v']])
  assert.deepEqual(removeFields(obj, remove, keep, schema), { mapList: [{ name: 'two', v: 'y' }] })
})

test('a field a closed struct does not declare is owned by nobody', () => {
  assert.deepEqual(toFieldSet({ struct: { a: 'x', stray: 1 }, unknown: 2 }, Type.Object({ struct: Type.Object({ a: Type.String() }, { additionalProperties: false }) }, { additionalProperties: false })).toFieldsV1(),
    { 'f:struct': { 'f:a': {} } })
})

test('a create\'s fields in one walk are the comparison with the empty object', () => {
  const comparedWithEmpty = (obj: Record<string, any>, s: Record<string, any>): FieldSet => {
    const c = compare(emptyObject(obj, s), obj, s)
    assert.ok(c.removed.empty())
    return c.modified.union(c.added)
  }
  // The rows above as one object, beside the top-level structs the empty object holds.
  const objects: Array<[Record<string, any>, Record<string, any>]> = [
    [Object.assign({}, ...rows.map(([, value]) => value)), schema],
    [{ struct: {}, atomicStruct: {}, granularMap: {} }, schema],
    [{ struct: { a: 'x' }, atomicStruct: { a: 'y' }, mapList: [{ name: 'x' }, { name: 'x', v: '2' }], setList: ['a', 'a'] }, schema],
    [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' }, managedFields: [{ manager: 'm' }] },
      spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], env: [{ name: 'E', value: '1' }] }], nodeSelector: {} },
      status: { phase: 'Pending' } }, pods.schema],
    [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: {}, secrets: [{ name: 'a' }], unknownField: { x: [1] } }, serviceaccounts.schema]
  ]
  for (const [obj, s] of objects) {
    const bare = withoutManagedFields(obj)
    assert.deepEqual(createdFields(bare, s)!.toFieldsV1(), comparedWithEmpty(bare, s).toFieldsV1(), JSON.stringify(obj))
  }
})
