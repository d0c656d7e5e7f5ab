// Strategic merge patch cases from the reference implementation's table (patch_test.go), on a
// schema with the same markers as its MergeItem test type.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Type, type TSchema } from '@sinclair/typebox'
import { strategicMergePatch } from '../../machinery/strategic-merge.js'
import { ApiError } from '../../resources/status.js'

const MergeItem: TSchema = Type.Recursive(This => Type.Object({
  name: Type.Optional(Type.String()),
  value: Type.Optional(Type.String()),
  other: Type.Optional(Type.String()),
  mergingList: Type.Optional(Type.Array(This, { 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' })),
  nonMergingList: Type.Optional(Type.Array(This)),
  mergingIntList: Type.Optional(Type.Array(Type.Integer(), { 'x-kubernetes-patch-strategy': 'merge' })),
  nonMergingIntList: Type.Optional(Type.Array(Type.Integer())),
  simpleMap: Type.Optional(Type.Record(Type.String(), Type.String())),
  replacingItem: Type.Optional(Type.Unknown({ 'x-kubernetes-patch-strategy': 'replace' })),
  retainKeysMap: Type.Optional(Type.Object({
    name: Type.Optional(Type.String()),
    value: Type.Optional(Type.String()),
    other: Type.Optional(Type.String())
  }, { 'x-kubernetes-patch-strategy': 'retainKeys' })),
  retainKeysMergingList: Type.Optional(Type.Array(This, { 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' })),
  // The list-type markers alone (no patch strategy) merge too.
  listMap: Type.Optional(Type.Array(Type.Object({ key: Type.String(), v: Type.Optional(Type.String()) }), { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'] }))
}))

// Type.Recursive puts the object under $ref/$id machinery; the patch walks the plain shape.
const schema = (() => {
  const s = structuredClone(MergeItem) as Record<string, any>
  const fix = (node: any): void => {
    if (node === null || typeof node !== 'object') return
    for (const k of Object.keys(node)) {
      if (node[k]?.$ref !== undefined && typeof node[k].$ref === 'string') node[k] = { ...s, ...Object.fromEntries(Object.entries(node[k]).filter(([x]) => x !== '$ref')) }
      else fix(node[k])
    }
  }
  fix(s.properties)
  return s as TSchema
})()

interface Case { name: string, original: object, patch: object, want: object }

const cases: Case[] = [
  { name: 'null deletes a field', original: { name: '1', value: '1' }, patch: { value: null }, want: { name: '1' } },
  { name: 'map keys merge', original: { simpleMap: { a: '1', b: '2' } }, patch: { simpleMap: { b: null, c: '3' } }, want: { simpleMap: { a: '1', c: '3' } } },
  // Items new to the live list come before the server's own, as upstream orders them.
  { name: 'merging list adds by merge key', original: { mergingList: [{ name: '1' }, { name: '2', value: '2' }] }, patch: { mergingList: [{ name: '3' }] }, want: { mergingList: [{ name: '3' }, { name: '1' }, { name: '2', value: '2' }] } },
  { name: 'merging list merges matching items', original: { mergingList: [{ name: '1', value: '1' }, { name: '2', value: '2' }] }, patch: { mergingList: [{ name: '2', value: 'b', other: 'x' }] }, want: { mergingList: [{ name: '1', value: '1' }, { name: '2', value: 'b', other: 'x' }] } },
  { name: '$patch: delete removes an item by merge key', original: { mergingList: [{ name: '1' }, { name: '2' }] }, patch: { mergingList: [{ name: '1', $patch: 'delete' }] }, want: { mergingList: [{ name: '2' }] } },
  { name: '$patch: replace replaces the whole list', original: { mergingList: [{ name: '1' }, { name: '2' }] }, patch: { mergingList: [{ name: '3' }, { $patch: 'replace' }] }, want: { mergingList: [{ name: '3' }] } },
  { name: '$patch: replace on a map replaces it', original: { simpleMap: { a: '1' }, name: 'n' }, patch: { simpleMap: { b: '2', $patch: 'replace' } }, want: { simpleMap: { b: '2' }, name: 'n' } },
  { name: '$patch: delete on a map empties it', original: { simpleMap: { a: '1' } }, patch: { simpleMap: { $patch: 'delete' } }, want: { simpleMap: {} } },
  { name: 'non-merging list is replaced', original: { nonMergingList: [{ name: '1' }, { name: '2' }] }, patch: { nonMergingList: [{ name: '3' }] }, want: { nonMergingList: [{ name: '3' }] } },
  { name: 'merging primitive list is a union', original: { mergingIntList: [1, 2] }, patch: { mergingIntList: [2, 3] }, want: { mergingIntList: [1, 2, 3] } },
  { name: 'non-merging primitive list is replaced', original: { nonMergingIntList: [1, 2] }, patch: { nonMergingIntList: [3] }, want: { nonMergingIntList: [3] } },
  { name: '$deleteFromPrimitiveList removes values', original: { mergingIntList: [1, 2, 3] }, patch: { '$deleteFromPrimitiveList/mergingIntList': [2] }, want: { mergingIntList: [1, 3] } },
  { name: '$retainKeys clears fields not listed', original: { retainKeysMap: { name: 'foo', value: 'bar', other: 'x' } }, patch: { retainKeysMap: { $retainKeys: ['name', 'value'], value: 'baz' } }, want: { retainKeysMap: { name: 'foo', value: 'baz' } } },
  { name: '$retainKeys inside merging list items', original: { retainKeysMergingList: [{ name: '1', value: 'a', other: 'b' }] }, patch: { retainKeysMergingList: [{ name: '1', $retainKeys: ['name', 'other'] }] }, want: { retainKeysMergingList: [{ name: '1', other: 'b' }] } },
  { name: '$setElementOrder reorders a merging list', original: { mergingList: [{ name: '1' }, { name: '2' }, { name: '3' }] }, patch: { '$setElementOrder/mergingList': [{ name: '3' }, { name: '2' }, { name: '1' }] }, want: { mergingList: [{ name: '3' }, { name: '2' }, { name: '1' }] } },
  { name: '$setElementOrder places an added item', original: { mergingList: [{ name: '1' }, { name: '2' }] }, patch: { '$setElementOrder/mergingList': [{ name: '1' }, { name: '3' }, { name: '2' }], mergingList: [{ name: '3' }] }, want: { mergingList: [{ name: '1' }, { name: '3' }, { name: '2' }] } },
  { name: '$setElementOrder keeps server-only items where they were', original: { mergingList: [{ name: '1' }, { name: '2' }, { name: '3' }] }, patch: { '$setElementOrder/mergingList': [{ name: '3' }, { name: '1' }] }, want: { mergingList: [{ name: '2' }, { name: '3' }, { name: '1' }] } },
  { name: '$setElementOrder on a primitive list', original: { mergingIntList: [1, 2, 3] }, patch: { '$setElementOrder/mergingIntList': [3, 1, 2] }, want: { mergingIntList: [3, 1, 2] } },
  { name: 'replace strategy takes the patch value', original: { replacingItem: { a: 1, b: 2 } }, patch: { replacingItem: { c: 3 } }, want: { replacingItem: { c: 3 } } },
  { name: 'list-type map merges by its key', original: { listMap: [{ key: 'a', v: '1' }] }, patch: { listMap: [{ key: 'a', v: '2' }, { key: 'b' }] }, want: { listMap: [{ key: 'a', v: '2' }, { key: 'b' }] } },
  { name: 'nested merging lists merge recursively', original: { mergingList: [{ name: '1', mergingList: [{ name: 'a' }] }] }, patch: { mergingList: [{ name: '1', mergingList: [{ name: 'b' }] }] }, want: { mergingList: [{ name: '1', mergingList: [{ name: 'b' }, { name: 'a' }] }] } },
  { name: 'directives in a new value are not stored', original: {}, patch: { mergingList: [{ name: '1' }, { $patch: 'replace' }] }, want: { mergingList: [{ name: '1' }] } }
]

describe('strategic merge patch', () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(strategicMergePatch(structuredClone(c.original) as Record<string, unknown>, c.patch, schema), c.want)
    })
  }

  const invalid: Array<{ name: string, original: object, patch: unknown }> = [
    { name: 'a list item without its merge key', original: { mergingList: [{ name: '1' }] }, patch: { mergingList: [{ value: 'x' }] } },
    { name: 'an unknown $patch directive', original: { simpleMap: {} }, patch: { simpleMap: { $patch: 'explode' } } },
    { name: 'a field outside $retainKeys', original: { retainKeysMap: {} }, patch: { retainKeysMap: { $retainKeys: ['name'], value: 'x' } } },
    { name: 'a body that is not an object', original: {}, patch: [1, 2] }
  ]
  for (const c of invalid) {
    it(`refuses ${c.name} with 400`, () => {
      assert.throws(() => strategicMergePatch(structuredClone(c.original) as Record<string, unknown>, c.patch, schema),
        (err: unknown) => err instanceof ApiError && err.status.code === 400)
    })
  }
})
