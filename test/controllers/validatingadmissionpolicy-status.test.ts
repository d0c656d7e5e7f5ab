// The validatingadmissionpolicy-status-controller: a policy's expressions type-checked against the
// schemas of the kinds it matches, written to status.typeChecking with status.observedGeneration
// in the reference's words, read back through the status endpoint.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { eventually } from '../helpers/eventually.js'
import { kindsToCheck } from '../../controllers/validatingadmissionpolicy-status.js'
import type { Resource } from '../../resources/define.js'

type AnyObject = Record<string, any>
const POLICIES = '/apis/admissionregistration.svc.io/v1/validatingadmissionpolicies'
const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'
const DEPLOYMENTS = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] }

describe('validatingadmissionpolicy-status-controller', () => {
  const app = suiteApp()
  const create = async (name: string, spec: AnyObject): Promise<void> => {
    const res = await app().request({ method: 'POST', url: POLICIES, payload: { metadata: { name }, spec } })
    assert.equal(res.statusCode, 201, res.body)
  }
  /** The status once the controller has checked `generation`, read through /status. */
  const checked = (name: string, generation = 1): Promise<AnyObject> => eventually(async () => {
    const res = await app().request({ method: 'GET', url: `${POLICIES}/${name}/status` })
    assert.equal(res.statusCode, 200, res.body)
    const policy = res.json()
    assert.equal(policy.metadata.generation, generation)
    assert.equal(policy.status?.observedGeneration, generation, JSON.stringify(policy.status))
    return policy.status
  })

  it('warns of a field Deployment does not have, in the reference\'s words, and not of a correct policy', async () => {
    await create('typo', { matchConstraints: DEPLOYMENTS, validations: [{ expression: 'object.spec.replica <= 3' }, { expression: 'object.spec.replicas <= 3' }] })
    const status = await checked('typo')
    assert.deepEqual(status.typeChecking.expressionWarnings, [{
      fieldRef: 'spec.validations[0].expression',
      warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n | object.spec.replica <= 3\n | ...........^\n"
    }])

    await create('fine', {
      matchConstraints: DEPLOYMENTS,
      validations: [{
        expression: "object.spec.replicas <= 3 && object.spec.template.spec.containers.all(c, c.image != '') && object.metadata.name.startsWith('web')",
        messageExpression: "'too many replicas for ' + request.userInfo.username + ' in ' + namespaceObject.metadata.name"
      }]
    })
    assert.deepEqual(await checked('fine'), { observedGeneration: 1, typeChecking: {} })
  })

  it('checks a changed policy again: observedGeneration follows the generation', async () => {
    const res = await app().request({
      method: 'PATCH',
      url: `${POLICIES}/typo`,
      headers: { 'content-type': 'application/json-patch+json' },
      payload: JSON.stringify([{ op: 'replace', path: '/spec/validations/0/expression', value: 'object.spec.replicas <= 3' }])
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(await checked('typo', 2), { observedGeneration: 2, typeChecking: {} })
  })

  it('types variables by their expressions, and names message expressions', async () => {
    await create('typed-variables', {
      matchConstraints: DEPLOYMENTS,
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }, { name: 'broken', expression: 'object.nope' }],
      validations: [
        { expression: "variables.replicas > 'three'", messageExpression: "'replicas: ' + variables.replicas" },
        // A variable that does not compile is dyn: no warning where it is read.
        { expression: 'variables.broken == 1' }
      ]
    })
    const warnings = (await checked('typed-variables')).typeChecking.expressionWarnings
    assert.deepEqual(warnings.map((w: AnyObject) => w.fieldRef), ['spec.validations[0].expression', 'spec.validations[0].messageExpression'])
    assert.match(warnings[0].warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:20: found no matching overload for '_>_' applied to '\(int, string\)'/)
    assert.match(warnings[1].warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:14: found no matching overload for '_\+_' applied to '\(string, int\)'/)
  })

  it('types params by the paramKind, and leaves them undeclared when no served kind is the paramKind', async () => {
    await create('configmap-params', {
      matchConstraints: DEPLOYMENTS,
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: "object.spec.replicas <= int(params.data['max'])" }, { expression: 'params.spec.max > 1' }]
    })
    assert.deepEqual((await checked('configmap-params')).typeChecking.expressionWarnings, [{
      fieldRef: 'spec.validations[1].expression',
      warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'spec'\n | params.spec.max > 1\n | ......^\n"
    }])
    await create('unknown-params', {
      matchConstraints: DEPLOYMENTS,
      paramKind: { apiVersion: 'example.com/v1', kind: 'Limits' },
      validations: [{ expression: 'object.spec.replicas <= params.max' }]
    })
    assert.match((await checked('unknown-params')).typeChecking.expressionWarnings[0].warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:25: undeclared reference to 'params'/)
  })

  it('checks every matched kind, in group, version and kind order, and none of a wildcard rule', async () => {
    await create('two-kinds', {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps', ''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['replicasets', 'pods', 'pods/status'] }] },
      validations: [{ expression: 'object.spec.replicas > 0' }]
    })
    const [warning] = (await checked('two-kinds')).typeChecking.expressionWarnings
    // ReplicaSets have spec.replicas; Pods do not (the pods/status subresource is not a kind to check).
    assert.equal(warning.warning, "/v1, Kind=Pod: ERROR: <input>:1:12: undefined field 'replicas'\n | object.spec.replicas > 0\n | ...........^\n")
    await create('wildcard', {
      matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
      validations: [{ expression: 'object.spec.nothing > 0' }]
    })
    assert.deepEqual(await checked('wildcard'), { observedGeneration: 1, typeChecking: {} })
  })

  it('joins the warnings of several kinds with a blank line', async () => {
    await create('both-wrong', {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['statefulsets', 'deployments'] }] },
      validations: [{ expression: 'object.nope' }]
    })
    const [{ warning }] = (await checked('both-wrong')).typeChecking.expressionWarnings
    const issue = "ERROR: <input>:1:7: undefined field 'nope'\n | object.nope\n | ......^\n"
    assert.equal(warning, `apps/v1, Kind=Deployment: ${issue}\napps/v1, Kind=StatefulSet: ${issue}`)
  })

  it('checks against a custom resource\'s schema', async () => {
    const crd = {
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }]
      }
    }
    assert.equal((await app().request({ method: 'POST', url: CRDS, payload: crd })).statusCode, 201)
    await eventually(async () => assert.equal((await app().request({ method: 'GET', url: '/apis/example.com/v1/widgets' })).statusCode, 200))
    await create('widgets', {
      matchConstraints: { resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }] },
      validations: [{ expression: 'object.spec.size < 10' }, { expression: "object.spec.size == 'big'" }]
    })
    const warnings = (await checked('widgets')).typeChecking.expressionWarnings
    assert.deepEqual(warnings.map((w: AnyObject) => w.fieldRef), ['spec.validations[1].expression'])
    assert.match(warnings[0].warning, /^example\.com\/v1, Kind=Widget: ERROR: <input>:1:18: found no matching overload for '_==_' applied to '\(int, string\)'/)
  })
})

describe('kindsToCheck', () => {
  it('stops at ten kinds, as the reference', () => {
    const served = Array.from({ length: 12 }, (_, i) => ({ group: 'example.com', version: 'v1', plural: `things${i}`, kind: `Thing${String(i).padStart(2, '0')}`, schema: { type: 'object' } })) as unknown as Resource[]
    const targets = kindsToCheck({ matchConstraints: { resourceRules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: served.map(r => r.plural) }] } }, served)
    assert.equal(targets.length, 10)
    assert.equal(targets[0]!.label, 'example.com/v1, Kind=Thing00')
  })
})
