// x-kubernetes-validations on custom objects: checked when the definition is written (compile
// errors, estimated cost) and on every write of an object (messages, reasons, field paths,
// transition rules), as the reference's apiextensions server does.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'

type Obj = Record<string, any>
const crdUrl = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'
const base = '/apis/rules.example.com/v1/namespaces/default/gates'

const definition = (specSchema: Obj): Obj => ({
  metadata: { name: 'gates.rules.example.com' },
  spec: {
    group: 'rules.example.com',
    scope: 'Namespaced',
    names: { plural: 'gates', kind: 'Gate' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema } } } }]
  }
})

const SPEC = {
  type: 'object',
  properties: {
    size: { type: 'integer' },
    min: { type: 'integer' },
    name: { type: 'string', maxLength: 64 },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 32 } }
  },
  'x-kubernetes-validations': [
    { rule: 'self.min <= self.size', message: 'min must not exceed size' },
    { rule: 'self.size >= oldSelf.size', message: 'size may not shrink' },
    { rule: "!has(self.name) || self.name.startsWith('gate-')", messageExpression: "'name ' + self.name + ' must start with gate-'", fieldPath: '.name', reason: 'FieldValueForbidden' }
  ]
}

const gate = (name: string, spec: Obj): Obj => ({ apiVersion: 'rules.example.com/v1', kind: 'Gate', metadata: { name }, spec })

describe('CEL validation rules of custom resources', () => {
  const app = suiteApp()
  const req = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    await app().request({ method: method as 'GET', url, payload: payload as Obj, headers })

  it('refuses a definition whose rule does not compile, with the reference path and message', async () => {
    const res = await req('POST', crdUrl, definition({ type: 'object', properties: { size: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.sise > 0' }] }))
    assert.equal(res.statusCode, 422, res.body)
    const cause = res.json().details.causes[0]
    assert.equal(cause.field, 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule')
    assert.match(cause.message, /compilation failed: ERROR: <input>:1:5: undefined field 'sise'/)
  })

  it('refuses a rule whose estimated cost is beyond the limit', async () => {
    const res = await req('POST', crdUrl, definition({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'string' } } },
      'x-kubernetes-validations': [{ rule: 'self.items.all(x, self.items.all(y, x == y || x.matches(y)))' }]
    }))
    assert.equal(res.statusCode, 422, res.body)
    assert.match(res.json().message, /estimated rule cost exceeds budget by factor of/)
  })

  it('checks every object write against the rules', async () => {
    assert.equal((await req('POST', crdUrl, definition(SPEC))).statusCode, 201)
    for (const end = Date.now() + 8000; Date.now() < end; await sleep(50)) if ((await req('GET', base)).statusCode === 200) break
    const bad = await req('POST', base, gate('a', { size: 1, min: 2, name: 'door' }))
    assert.equal(bad.statusCode, 422, bad.body)
    const causes = bad.json().details.causes.map((c: Obj) => [c.reason, c.field, c.message])
    assert.deepEqual(causes, [
      ['FieldValueInvalid', 'spec', 'Invalid value: "object": min must not exceed size'],
      ['FieldValueForbidden', 'spec.name', 'Forbidden: name door must start with gate-']
    ])
    // The transition rule does not run on create.
    const ok = await req('POST', base, gate('a', { size: 3, min: 1, name: 'gate-a' }))
    assert.equal(ok.statusCode, 201, ok.body)
    const shrink = await req('PATCH', `${base}/a`, { spec: { size: 2 } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(shrink.statusCode, 422, shrink.body)
    assert.match(shrink.json().message, /spec: Invalid value: "object": size may not shrink/)
    const grow = await req('PATCH', `${base}/a`, { spec: { size: 5 } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(grow.statusCode, 200, grow.body)
  })
})
