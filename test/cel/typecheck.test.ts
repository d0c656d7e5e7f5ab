// The policy type check against kinds' declared schemas: TypeBox forms read as OpenAPI's, the
// variables the reference types (request, namespaceObject, params, variables), and the warning format.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { kindStructuralSchema } from '../../machinery/cel/kind-schema.js'
import { typeCheckPolicy, type TypeCheckedPolicy } from '../../machinery/cel/typecheck.js'
import deployments from '../../resources/deployments.js'
import configmaps from '../../resources/configmaps.js'

const deployment = { label: 'apps/v1, Kind=Deployment', kind: 'Deployment', schema: kindStructuralSchema(deployments.schema) }

async function problems (sources: string[], more: Partial<TypeCheckedPolicy> = {}): Promise<Array<string | undefined>> {
  const expressions = sources.map((source, i) => ({ fieldRef: `spec.validations[${i}].expression`, source }))
  const warnings = await typeCheckPolicy([deployment], { expressions, variables: [], ...more })
  return expressions.map(e => warnings.find(w => w.fieldRef === e.fieldRef)?.warning)
}

describe('policy type check', () => {
  it('reads TypeBox unions as OpenAPI publishes them: nullable types, int-or-string, Record maps', () => {
    const meta = kindStructuralSchema(deployments.schema).properties!.metadata!.properties!
    assert.deepEqual(meta.creationTimestamp, { type: 'string', format: 'date-time' })
    assert.deepEqual(meta.labels, { type: 'object', additionalProperties: { type: 'string' } })
    const strategy = kindStructuralSchema(deployments.schema).properties!.spec!.properties!.strategy!.properties!.rollingUpdate!.properties!
    assert.equal(strategy.maxSurge!['x-kubernetes-int-or-string'], true)
  })

  it('types the object, request and namespaceObject; leaves int-or-string fields dyn', async () => {
    assert.deepEqual(await problems([
      "object.metadata.creationTimestamp < timestamp('2024-01-01T00:00:00Z') && object.metadata.labels['a'] == 'b'",
      "request.userInfo.groups.exists(g, g == 'x') && request.kind.kind == 'Deployment' && request.dryRun",
      "namespaceObject.metadata.labels['team'] == 'a' && namespaceObject.status.phase == 'Active'",
      "object.spec.strategy.rollingUpdate.maxSurge == '25%' || object.spec.strategy.rollingUpdate.maxSurge == 1"
    ]), [undefined, undefined, undefined, undefined])
    const [req, ns] = await problems(['request.user == "a"', 'namespaceObject.spec.nope'])
    assert.equal(req, "apps/v1, Kind=Deployment: ERROR: <input>:1:8: undefined field 'user'\n | request.user == \"a\"\n | .......^\n")
    assert.match(ns!, /undefined field 'nope'/)
  })

  it('types params by their schema and each variable for the ones after it', async () => {
    const params = kindStructuralSchema(configmaps.schema)
    const variables = [{ name: 'early', expression: 'variables.late' }, { name: 'late', expression: 'object.spec.replicas' }]
    const [fine, wrong, early] = await problems(["params.data['x'] == 'y' && variables.late > 1", 'variables.late == params.data', 'variables.early'], { params, variables })
    assert.equal(fine, undefined)
    assert.match(wrong!, /found no matching overload for '_==_' applied to '\(int, map\(string, string\)\)'/)
    // `early` reads a later variable: it does not compile, so it is dyn where it is read.
    assert.equal(early, undefined)
  })

  it('skips no kind named like one of the engine\'s own types', async () => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } }
    const warnings = await typeCheckPolicy([{ label: 'example.com/v1, Kind=OptionalNamespace', kind: 'OptionalNamespace', schema }],
      { expressions: [{ fieldRef: 'spec.validations[0].expression', source: 'object.spec.sise > 1' }], variables: [] })
    assert.match(warnings[0]!.warning, /^example\.com\/v1, Kind=OptionalNamespace: ERROR: <input>:1:12: undefined field 'sise'/)
  })
})
