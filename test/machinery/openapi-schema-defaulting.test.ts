// Defaulting of custom objects (the reference's defaulting.Default after
// PruneNonNullableNullsWithoutDefaults).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { applyDefaults, type JSONSchemaProps } from '../../machinery/openapi-schema/index.js'

interface Case { name: string, schema: JSONSchemaProps, obj: unknown, want: unknown }

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        image: { type: 'string' },
        mode: { type: 'string', nullable: true, default: 'auto' },
        tags: { type: 'array', items: { type: 'string', default: 'none' } },
        ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' }, port: { type: 'integer' } } } },
        limits: { type: 'object', additionalProperties: { type: 'object', default: { max: 5 }, properties: { max: { type: 'integer' }, unit: { type: 'string', default: 'm' } } } },
        settings: { type: 'object', default: { a: { b: 1 } }, properties: { a: { type: 'object', properties: { b: { type: 'integer' } } } } }
      }
    }
  }
}

const cases: Case[] = [
  { name: 'a missing object from its default, and then its own properties', schema, obj: {}, want: { spec: { replicas: 1, mode: 'auto', settings: { a: { b: 1 } } } } },
  { name: 'nothing over a value that is set', schema, obj: { spec: { replicas: 3, mode: 'manual' } }, want: { spec: { replicas: 3, mode: 'manual', settings: { a: { b: 1 } } } } },
  { name: 'a non-nullable null from its default', schema, obj: { spec: { replicas: null } }, want: { spec: { replicas: 1, mode: 'auto', settings: { a: { b: 1 } } } } },
  { name: 'a nullable null kept', schema, obj: { spec: { mode: null } }, want: { spec: { replicas: 1, mode: null, settings: { a: { b: 1 } } } } },
  { name: 'a non-nullable null without a default dropped', schema, obj: { spec: { image: null } }, want: { spec: { replicas: 1, mode: 'auto', settings: { a: { b: 1 } } } } },
  { name: 'array items: null items from the items default, objects\' missing fields', schema, obj: { spec: { tags: ['a', null], ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] } }, want: { spec: { replicas: 1, mode: 'auto', settings: { a: { b: 1 } }, tags: ['a', 'none'], ports: [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] } } },
  { name: 'additionalProperties values: a null from the default, each value\'s missing fields', schema, obj: { spec: { limits: { cpu: null, mem: { max: 2 } } } }, want: { spec: { replicas: 1, mode: 'auto', settings: { a: { b: 1 } }, limits: { cpu: { max: 5, unit: 'm' }, mem: { max: 2, unit: 'm' } } } } }
]

describe('openapi-schema defaulting', () => {
  for (const c of cases) {
    it(`defaults ${c.name}`, () => {
      applyDefaults(c.obj, c.schema)
      assert.deepEqual(c.obj, c.want)
    })
  }

  it('copies defaults, so two objects never share one', () => {
    const a: any = {}
    const b: any = {}
    applyDefaults(a, schema)
    applyDefaults(b, schema)
    a.spec.settings.a.b = 99
    assert.equal(b.spec.settings.a.b, 1)
    assert.equal((schema.properties!.spec!.properties!.settings!.default as any).a.b, 1)
  })
})
