// Message literals (`Object{...}`, `JSONPatch{...}`) rewritten for the engine: strings and map
// literals left alone, nested literals and error positions kept, and the values they build.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { rewriteMessageLiterals } from '../../machinery/cel/message-literals.js'
import { constructorFor, celToJson, typeNameMismatches, ObjectValue } from '../../machinery/cel/library/mutation.js'
import { compileAdmissionExpression } from '../../machinery/cel/admission.js'

const scope = { params: false, authorizer: false }
const vars = { object: new Map([['items', [1n, 2n]]]), oldObject: null, request: new Map(), namespaceObject: null }

describe('message literals', () => {
  it('leaves sources without literals, strings and `in {...}` as they are', () => {
    for (const src of ['a in {"x": 1}', '"Object{a: 1}" + \'x{\'', 'object.items.map(i, i * 2)']) {
      assert.equal(rewriteMessageLiterals(src, constructorFor).source, src)
    }
  })

  it('rewrites nested literals and refuses unknown type names', () => {
    const r = rewriteMessageLiterals('Object{spec: Object.spec{replicas: 1, names: ["a"]}}', constructorFor)
    assert.equal(r.source, '__k8s_object({"spec": dyn( __k8s_nested("Object.spec", {"replicas": dyn( 1),"names": dyn( ["a"])}))})')
    assert.deepEqual(rewriteMessageLiterals('1 + Foo{a: 1}', constructorFor).unknownType, { name: 'Foo', at: 4 })
  })

  it('builds values: JSON out, nested type names checked against their field path', () => {
    const ok = compileAdmissionExpression('Object{spec: Object.spec{replicas: size(object.items)}}', 'object', scope)
    assert.ok(ok.ok)
    const value = ok.expression.evaluate(vars)
    assert.ok(value.ok && value.value instanceof ObjectValue)
    assert.deepEqual(celToJson(value.value), { spec: { replicas: 2 } })
    assert.deepEqual(typeNameMismatches(value.value), [])
    const bad = compileAdmissionExpression('Object{spec: Object.status{}}', 'object', scope)
    assert.ok(bad.ok)
    const v = bad.expression.evaluate(vars)
    assert.ok(v.ok)
    assert.deepEqual(typeNameMismatches(v.value as ObjectValue), ['unexpected type name "Object.status", expected "Object.spec", which matches field name path from root Object type'])
  })

  it('sets a `?field:` only when its optional has a value, and type-checks the nested literal inside', () => {
    const c = compileAdmissionExpression('Object{?spec: optional.of(Object.spec{?replicas: optional.none(), n: size(object.items)}), ?status: optional.none()}', 'object', scope)
    assert.ok(c.ok, c.ok ? '' : c.error)
    const v = c.expression.evaluate(vars)
    assert.ok(v.ok && v.value instanceof ObjectValue)
    assert.deepEqual(celToJson(v.value), { spec: { n: 2 } })
    assert.deepEqual(typeNameMismatches(v.value), [])
  })

  it('puts compile errors where the user wrote them', () => {
    const c = compileAdmissionExpression('Object{metadata: Object.metadata{name: nope}}', 'object', scope)
    assert.ok(!c.ok)
    assert.match(c.error, /^compilation failed: ERROR: <input>:1:40: undeclared reference to 'nope'/)
    const j = compileAdmissionExpression('[JSONPatch{op: "add", path: "/a/" + jsonpatch.escapeKey("x/y~z"), value: 1}]', 'json-patch', scope)
    assert.ok(j.ok)
    const r = j.expression.evaluate(vars)
    assert.ok(r.ok)
    assert.deepEqual(celToJson((r.value as Array<{ fields: unknown }>).map(p => p.fields)), [{ op: 'add', path: '/a/x~1y~0z', value: 1 }])
  })
})
