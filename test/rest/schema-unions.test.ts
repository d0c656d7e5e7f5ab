// Unions of literals in a schema: every literal is accepted, anything else is NotSupported with all of them.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from '@sinclair/typebox'
import { checkAgainstSchema } from '../../machinery/schema-check.js'

const schema = Type.Object({ phase: Type.Optional(Type.Union([Type.Literal('Active'), Type.Literal('Terminating')])) }, { additionalProperties: false })

describe('schema check of literal unions', () => {
  for (const phase of ['Active', 'Terminating']) {
    it(`accepts ${phase}`, () => { assert.deepEqual(checkAgainstSchema(schema, { phase }, true).errors, []) })
  }
  it('refuses another value, naming every literal', () => {
    assert.deepEqual(checkAgainstSchema(schema, { phase: 'Gone' }, true).errors, [{ type: 'NotSupported', field: 'phase', value: 'Gone', supported: ['Active', 'Terminating'] }])
  })
})
