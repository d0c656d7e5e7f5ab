// MutatingAdmissionPolicy and its binding (v1alpha1): served only with the feature gate and
// --runtime-config both on, and their write-time checks in the reference's words and paths.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from '../resources/suite.js'
import { buildTestApp } from '../helpers/app.js'

type AnyObject = Record<string, any>
const AR = '/apis/admissionregistration.svc.io/v1alpha1'
const POLICIES = `${AR}/mutatingadmissionpolicies`
const BINDINGS = `${AR}/mutatingadmissionpolicybindings`
import { MAP_ON } from './map-options.js'

const CM_RULES = { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }
const policy = (name: string, spec: AnyObject): AnyObject => ({ metadata: { name }, spec: { matchConstraints: CM_RULES, reinvocationPolicy: 'Never', ...spec } })
const LABEL = { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' } }

describe('MutatingAdmissionPolicy kinds: served behind the gate and runtime-config', () => {
  it('answers 404 unless both the gate and the runtime-config are on', async (t) => {
    for (const opts of [{}, { featureGates: { MutatingAdmissionPolicy: true } }, { runtimeConfig: MAP_ON.runtimeConfig }]) {
      const app = await buildTestApp(t, opts)
      const res = await app.request({ method: 'GET', url: POLICIES })
      assert.equal(res.statusCode, 404, JSON.stringify(opts))
    }
    const on = await buildTestApp(t, MAP_ON)
    assert.equal((await on.request({ method: 'GET', url: POLICIES })).statusCode, 200)
    assert.equal((await on.request({ method: 'GET', url: BINDINGS })).statusCode, 200)
    const discovery = (await on.request({ method: 'GET', url: AR })).json()
    assert.deepEqual(discovery.resources.map((r: AnyObject) => r.name).sort(), ['mutatingadmissionpolicies', 'mutatingadmissionpolicybindings'])
  })
})

describe('MutatingAdmissionPolicy kinds: write-time checks', () => {
  const app = suiteApp(MAP_ON)
  const create = (url: string, body: AnyObject) => app().request({ method: 'POST', url, payload: body })

  it('accepts both patch types, and defaults failurePolicy to Fail', async () => {
    const res = await create(POLICIES, policy('ok', {
      mutations: [LABEL, { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/data/" + jsonpatch.escapeKey("a/b"), value: "x"}]' } }]
    }))
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.failurePolicy, 'Fail')
  })

  it('requires the policy\'s parts', async () => {
    const res = await create(POLICIES, { metadata: { name: 'empty' }, spec: {} })
    assertInvalid(res, 'spec.matchConstraints', 'FieldValueRequired')
    assertInvalid(res, 'spec.mutations', 'FieldValueRequired', 'mutations must contain at least one item')
    assertInvalid(res, 'spec.reinvocationPolicy', 'FieldValueRequired')
  })

  it('checks patch types, reinvocation policies and mutable operations', async () => {
    const res = await create(POLICIES, policy('parts', {
      reinvocationPolicy: 'Sometimes',
      matchConstraints: { resourceRules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
      mutations: [
        { patchType: 'Merge' },
        { patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: ' ' } }
      ]
    }))
    assertInvalid(res, 'spec.reinvocationPolicy', 'FieldValueNotSupported')
    assertInvalid(res, 'spec.matchConstraints.resourceRules.operations', 'FieldValueNotSupported')
    assertInvalid(res, 'spec.mutations[0].patchType', 'FieldValueNotSupported')
    assertInvalid(res, 'spec.mutations[1].jsonPatch', 'FieldValueRequired', 'must be specified when patchType is JSONPatch')
    assertInvalid(res, 'spec.mutations[1].applyConfiguration', 'FieldValueInvalid', 'must not be specified when patchType is JSONPatch')
    assertInvalid(res, 'spec.mutations[2].applyConfiguration.expression', 'FieldValueRequired')
  })

  it('compiles expressions: result types, unknown message types, and errors placed in what was written', async () => {
    const res = await create(POLICIES, policy('compile', {
      mutations: [
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: '"x"' } },
        { patchType: 'JSONPatch', jsonPatch: { expression: 'Object{}' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Foo{a: 1}' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: nope}}' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: params.x}' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{?labels: {"a": "b"}}}' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'variables.patches' } }
      ],
      variables: [{ name: 'patches', expression: '[JSONPatch{op: "remove", path: "/data"}]' }]
    }))
    assertInvalid(res, 'spec.mutations[0].applyConfiguration.expression', 'FieldValueInvalid', 'must evaluate to Object')
    assertInvalid(res, 'spec.mutations[1].jsonPatch.expression', 'FieldValueInvalid', 'must evaluate to list(JSONPatch)')
    assertInvalid(res, 'spec.mutations[2].applyConfiguration.expression', 'FieldValueInvalid', "ERROR: <input>:1:1: undeclared reference to 'Foo'")
    assertInvalid(res, 'spec.mutations[3].applyConfiguration.expression', 'FieldValueInvalid', "ERROR: <input>:1:42: undeclared reference to 'nope'")
    assertInvalid(res, 'spec.mutations[4].applyConfiguration.expression', 'FieldValueInvalid', "undeclared reference to 'params'")
    // A variable's type is its literal's: a list of patches is no apply configuration.
    assertInvalid(res, 'spec.mutations[6].applyConfiguration.expression', 'FieldValueInvalid', 'must evaluate to Object')
    assertInvalid(res, 'spec.mutations[5].applyConfiguration.expression', 'FieldValueInvalid',
      "ERROR: <input>:1:41: expected type of field 'labels' is 'optional_type(dyn)' but provided type is 'map<string, string>'")
  })

  it('checks a binding: policy name, paramRef, matchResources operations', async () => {
    const res = await create(BINDINGS, { metadata: { name: 'b' }, spec: { paramRef: { name: 'x', selector: {} }, matchResources: { resourceRules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } } })
    assertInvalid(res, 'spec.policyName', 'FieldValueRequired')
    assertInvalid(res, 'spec.paramRef.name', 'FieldValueForbidden', 'name and selector are mutually exclusive')
    assertInvalid(res, 'spec.paramRef.parameterNotFoundAction', 'FieldValueRequired')
    assertInvalid(res, 'spec.matchResources.resourceRules.operations', 'FieldValueNotSupported')
  })
})
