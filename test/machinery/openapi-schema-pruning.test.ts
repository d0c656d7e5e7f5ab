// Pruning of custom objects (the reference's pruning.PruneWithOptions): what goes, what stays,
// and the sorted paths Strict refuses and Warn names.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { prune, unknownFieldWarnings, type JSONSchemaProps } from '../../machinery/openapi-schema/index.js'

interface Case { name: string, schema: JSONSchemaProps | undefined, obj: unknown, want: unknown, pruned: string[] }

const cronTab: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string' },
        ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        nested: { type: 'object', additionalProperties: { type: 'object', properties: { keep: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { typed: { type: 'object', properties: { a: { type: 'string' } } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
        raw: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }
      }
    }
  }
}

const cases: Case[] = [
  {
    name: 'unknown fields at every depth, keeping the root\'s apiVersion, kind and metadata',
    schema: cronTab,
    obj: { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'x', unknownMeta: 1 }, extra: 1, spec: { cronSpec: '* * * * */5', foo: 'bar', deep: { a: 1 } } },
    want: { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'x', unknownMeta: 1 }, spec: { cronSpec: '* * * * */5' } },
    pruned: ['extra', 'spec.deep', 'spec.foo']
  },
  {
    name: 'unknown fields of objects in arrays, named by index',
    schema: cronTab,
    obj: { spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { port: 443, x: { y: 1 } }] } },
    want: { spec: { ports: [{ name: 'http', port: 80 }, { port: 443 }] } },
    pruned: ['spec.ports[0].protocol', 'spec.ports[1].x']
  },
  {
    name: 'inside additionalProperties schemas, but not the map keys',
    schema: cronTab,
    obj: { spec: { labels: { a: 'b', c: 'd' }, nested: { k: { keep: 'y', drop: 'z' } } } },
    want: { spec: { labels: { a: 'b', c: 'd' }, nested: { k: { keep: 'y' } } } },
    pruned: ['spec.nested.k.drop']
  },
  {
    name: 'nothing under x-kubernetes-preserve-unknown-fields, except inside its declared properties',
    schema: cronTab,
    obj: { spec: { free: { anything: { goes: [1, 2] }, typed: { a: 'x', b: 'gone' } } } },
    want: { spec: { free: { anything: { goes: [1, 2] }, typed: { a: 'x' } } } },
    pruned: ['spec.free.typed.b']
  },
  {
    name: 'an embedded resource\'s apiVersion, kind and metadata stay, its unknown fields go',
    schema: cronTab,
    obj: { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', whatever: true }, spec: { x: 'a', y: 'b' }, status: {} } } },
    want: { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', whatever: true }, spec: { x: 'a' } } } },
    pruned: ['spec.template.spec.y', 'spec.template.status']
  },
  {
    name: 'nothing of an embedded resource that preserves unknown fields',
    schema: cronTab,
    obj: { spec: { raw: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } } } },
    want: { spec: { raw: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } } } },
    pruned: []
  },
  {
    name: 'everything but the type and object meta without a schema',
    schema: undefined,
    obj: { apiVersion: 'v1', kind: 'X', metadata: {}, spec: { a: 1 } },
    want: { apiVersion: 'v1', kind: 'X', metadata: {} },
    pruned: ['spec']
  },
  {
    name: 'a key such as __proto__ like any other',
    schema: cronTab,
    obj: JSON.parse('{"spec":{"__proto__":{"polluted":true},"cronSpec":"x"}}'),
    want: { spec: { cronSpec: 'x' } },
    pruned: ['spec.__proto__']
  }
]

describe('openapi-schema pruning', () => {
  for (const c of cases) {
    it(`prunes ${c.name}`, () => {
      const pruned = prune(c.obj, c.schema)
      assert.deepEqual(c.obj, c.want)
      assert.deepEqual(pruned, c.pruned)
      assert.equal(({} as Record<string, unknown>).polluted, undefined)
    })
  }

  it('names pruned fields in the words of fieldValidation=Warn', () => {
    assert.deepEqual(unknownFieldWarnings(['spec.foo', 'spec.ports[0].x']), ['unknown field "spec.foo"', 'unknown field "spec.ports[0].x"'])
  })
})
