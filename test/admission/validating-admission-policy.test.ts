// ValidatingAdmissionPolicy end to end through app.inject: the kinds' write-time checks (compile
// errors in the reference's words), then the plugin: matching, params by name and selector,
// every variable, the three actions, failure policies, the runtime cost limit and dry run.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from '../resources/suite.js'

type AnyObject = Record<string, any>
const AR = '/apis/admissionregistration.svc.io/v1'
const POLICIES = `${AR}/validatingadmissionpolicies`
const BINDINGS = `${AR}/validatingadmissionpolicybindings`
const CMS = '/api/v1/namespaces/default/configmaps'

const CM_RULES = { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }

const policy = (name: string, spec: AnyObject): AnyObject => ({ metadata: { name }, spec: { matchConstraints: CM_RULES, ...spec } })
const binding = (name: string, policyName: string, spec: AnyObject = {}): AnyObject =>
  ({ metadata: { name }, spec: { policyName, validationActions: ['Deny'], ...spec } })

describe('ValidatingAdmissionPolicy kinds: write-time checks', () => {
  const app = suiteApp()
  const create = (url: string, body: AnyObject) => app().request({ method: 'POST', url, payload: body })

  it('refuses an expression that does not compile, with the reference\'s message', async () => {
    const res = await create(POLICIES, policy('bad-syntax', { validations: [{ expression: 'object.x in [1, 2, ' }] }))
    assertInvalid(res, 'spec.validations[0].expression', 'FieldValueInvalid', 'compilation failed: ERROR: <input>:1:')
    assert.match(res.json().message, /spec\.validations\[0\]\.expression: Invalid value: "object\.x in \[1, 2, ": compilation failed: ERROR: <input>:1:/)
  })

  it('refuses a validation that is not a bool, a message expression that is not a string, an audit value that is neither string nor null', async () => {
    const res = await create(POLICIES, policy('bad-types', {
      validations: [{ expression: '1', messageExpression: '2' }],
      auditAnnotations: [{ key: 'k', valueExpression: 'true' }]
    }))
    assertInvalid(res, 'spec.validations[0].expression', 'FieldValueInvalid', 'must evaluate to bool')
    assertInvalid(res, 'spec.validations[0].messageExpression', 'FieldValueInvalid', 'must evaluate to string')
    assertInvalid(res, 'spec.auditAnnotations[0].valueExpression', 'FieldValueInvalid', 'must evaluate to one of [string null_type]')
  })

  it('declares params only with a paramKind, and no authorizer in messages', async () => {
    const res = await create(POLICIES, policy('no-params', { validations: [{ expression: 'params.data.x == "1"', messageExpression: "authorizer.path('/x').check('get').reason()" }] }))
    assertInvalid(res, 'spec.validations[0].expression', 'FieldValueInvalid', "undeclared reference to 'params'")
    assertInvalid(res, 'spec.validations[0].messageExpression', 'FieldValueInvalid', "undeclared reference to 'authorizer'")
  })

  it('requires the policy\'s parts and checks variables, match conditions and reasons', async () => {
    const res = await create(POLICIES, { metadata: { name: 'empty' }, spec: {} })
    assertInvalid(res, 'spec.matchConstraints', 'FieldValueRequired')
    assertInvalid(res, 'spec.validations', 'FieldValueRequired', 'validations or auditAnnotations must contain at least one item')
    const res2 = await create(POLICIES, policy('parts', {
      variables: [{ name: 'in', expression: 'true' }],
      matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })),
      validations: [{ expression: 'true', reason: 'Teapot', message: 'two\nlines' }]
    }))
    assertInvalid(res2, 'spec.variables[0].name', 'FieldValueInvalid', 'name is not a valid CEL identifier')
    assertInvalid(res2, 'spec.matchConditions', 'FieldValueTooMany')
    assertInvalid(res2, 'spec.validations[0].reason', 'FieldValueNotSupported')
    assertInvalid(res2, 'spec.validations[0].message', 'FieldValueInvalid', 'message must not contain line breaks')
  })

  it('types each variable by its expression for the expressions that read it', async () => {
    const res = await create(POLICIES, policy('typed-variables', {
      variables: [
        { name: 'count', expression: 'size(object.data)' },
        { name: 'early', expression: 'variables.late' },
        { name: 'late', expression: 'variables.count + 1' },
        { name: 'broken', expression: 'nope' }
      ],
      validations: [
        { expression: "variables.count > 'three'" },
        { expression: 'variables.late' },
        { expression: 'variables.broken == 1 && variables.late > 1', messageExpression: 'variables.count' }
      ]
    }))
    // A variable reads only the ones before it; one that does not compile is dyn.
    assertInvalid(res, 'spec.variables[1].expression', 'FieldValueInvalid', "ERROR: <input>:1:10: undefined field 'late'")
    assertInvalid(res, 'spec.variables[3].expression', 'FieldValueInvalid', "undeclared reference to 'nope'")
    assertInvalid(res, 'spec.validations[0].expression', 'FieldValueInvalid', "ERROR: <input>:1:17: found no matching overload for '_>_' applied to '(int, string)'")
    assertInvalid(res, 'spec.validations[1].expression', 'FieldValueInvalid', 'must evaluate to bool')
    assertInvalid(res, 'spec.validations[2].messageExpression', 'FieldValueInvalid', 'must evaluate to string')
    const causes = res.json().details.causes.map((c: AnyObject) => c.field)
    assert.ok(!causes.includes('spec.validations[2].expression'), JSON.stringify(causes))
  })

  it('refuses a binding with Deny and Warn, no action, or a paramRef with both name and selector', async () => {
    const res = await create(BINDINGS, binding('both', 'p', { validationActions: ['Deny', 'Warn'], paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Deny' } }))
    assertInvalid(res, 'spec.validationActions', 'FieldValueInvalid', 'must not contain both Deny and Warn')
    assertInvalid(res, 'spec.paramRef.name', 'FieldValueForbidden', 'name and selector are mutually exclusive')
    const res2 = await create(BINDINGS, binding('none', 'p', { validationActions: [], paramRef: { name: 'x' } }))
    assertInvalid(res2, 'spec.validationActions', 'FieldValueRequired', 'at least one validation action is required')
    assertInvalid(res2, 'spec.paramRef.parameterNotFoundAction', 'FieldValueRequired')
  })

  it('defaults failurePolicy and the match constraints\' policy and selectors', async () => {
    const res = await create(POLICIES, policy('defaults', { validations: [{ expression: 'true' }] }))
    assert.equal(res.statusCode, 201, res.body)
    const spec = res.json().spec
    assert.equal(spec.failurePolicy, 'Fail')
    assert.equal(spec.matchConstraints.matchPolicy, 'Equivalent')
    assert.deepEqual(spec.matchConstraints.namespaceSelector, {})
    assert.equal(spec.matchConstraints.resourceRules[0].scope, '*')
  })
})

describe('ValidatingAdmissionPolicy plugin', () => {
  const app = suiteApp()
  const req = (o: AnyObject) => app().request(o as any)
  const create = async (url: string, body: AnyObject) => {
    const res = await req({ method: 'POST', url, payload: body })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  const cm = (name: string, data: AnyObject = {}, labels: AnyObject = {}, query = '') =>
    req({ method: 'POST', url: CMS + query, payload: { metadata: { name, labels }, data } })
  /** A policy and its binding scoped to configmaps labelled `case: <name>`. */
  const bound = async (name: string, spec: AnyObject, bindingSpec: AnyObject = {}) => {
    await create(POLICIES, policy(name, spec))
    await create(BINDINGS, binding(name, name, { matchResources: { objectSelector: { matchLabels: { case: name } } }, ...bindingSpec }))
  }

  it('denies with the policy\'s and binding\'s names, 422 Invalid by default', async () => {
    await bound('size', { validations: [{ expression: "size(object.data) <= 1" }] })
    const res = await cm('too-big', { a: '1', b: '2' }, { case: 'size' })
    assert.equal(res.statusCode, 422, res.body)
    const s = res.json()
    assert.equal(s.reason, 'Invalid')
    assert.equal(s.message, 'configmaps "too-big" is forbidden: ValidatingAdmissionPolicy \'size\' with binding \'size\' denied request: failed expression: size(object.data) <= 1')
    assert.deepEqual(s.details.causes, [{ message: 'ValidatingAdmissionPolicy \'size\' with binding \'size\' denied request: failed expression: size(object.data) <= 1' }])
    assert.equal((await cm('small', { a: '1' }, { case: 'size' })).statusCode, 201)
    // Unlabelled: the binding does not match.
    assert.equal((await cm('too-big-elsewhere', { a: '1', b: '2' })).statusCode, 201)
  })

  it('uses the message, then messageExpression, and the validation\'s reason and code', async () => {
    await bound('reasons', {
      validations: [
        { expression: "object.metadata.name != 'm1'", message: 'name m1 is taken', reason: 'Forbidden' },
        { expression: "object.metadata.name != 'm2'", messageExpression: "'name ' + object.metadata.name + ' is taken'", reason: 'RequestEntityTooLarge' }
      ]
    })
    const r1 = await cm('m1', {}, { case: 'reasons' })
    assert.equal(r1.statusCode, 403)
    assert.match(r1.json().message, /denied request: name m1 is taken$/)
    const r2 = await cm('m2', {}, { case: 'reasons' })
    assert.equal(r2.statusCode, 413)
    assert.equal(r2.json().reason, 'RequestEntityTooLarge')
    assert.match(r2.json().message, /denied request: name m2 is taken$/)
  })

  it('reads params by name, and parameterNotFoundAction decides when none is found', async () => {
    await create(CMS, { metadata: { name: 'limits' }, data: { max: '2' } })
    const spec = { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'size(object.data) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' keys'" }] }
    await bound('by-name', spec, { paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } })
    const res = await cm('three', { a: '1', b: '2', c: '3' }, { case: 'by-name' })
    assert.equal(res.statusCode, 422)
    assert.match(res.json().message, /with binding 'by-name' denied request: at most 2 keys$/)
    assert.equal((await cm('two', { a: '1', b: '2' }, { case: 'by-name' })).statusCode, 201)

    await bound('missing-deny', spec, { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } })
    const missing = await cm('m', {}, { case: 'missing-deny' })
    assert.equal(missing.statusCode, 422)
    assert.equal(missing.json().message, 'configmaps "m" is forbidden: ValidatingAdmissionPolicy \'missing-deny\' with binding \'missing-deny\' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction')
    await bound('missing-allow', spec, { paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' } })
    assert.equal((await cm('m', { a: '1', b: '2', c: '3' }, { case: 'missing-allow' })).statusCode, 201)
  })

  it('reads params by selector: the policy runs once per parameter object', async () => {
    await create(CMS, { metadata: { name: 'forbid-a', labels: { rule: 'forbidden-key' } }, data: { key: 'a' } })
    await create(CMS, { metadata: { name: 'forbid-b', labels: { rule: 'forbidden-key' } }, data: { key: 'b' } })
    await bound('by-selector', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: '!(params.data.key in object.data)', messageExpression: "'key ' + params.data.key + ' is forbidden'" }]
    }, { paramRef: { selector: { matchLabels: { rule: 'forbidden-key' } }, parameterNotFoundAction: 'Deny' } })
    const res = await cm('has-b', { b: '1' }, { case: 'by-selector' })
    assert.equal(res.statusCode, 422)
    assert.match(res.json().message, /denied request: key b is forbidden$/)
    assert.equal((await cm('has-c', { c: '1' }, { case: 'by-selector' })).statusCode, 201)
  })

  it('gives every variable: object, oldObject, request, namespaceObject, authorizer, variables', async () => {
    await bound('variables', {
      variables: [{ name: 'keys', expression: 'size(object.data)' }, { name: 'many', expression: 'variables.keys > 1' }],
      validations: [
        { expression: '!variables.many', message: 'many' },
        { expression: "request.operation != 'UPDATE' || oldObject.data.a == object.data.a", message: 'a is immutable' },
        { expression: "request.userInfo.username == 'admin' && request.namespace == 'default' && request.kind.kind == 'ConfigMap'", message: 'request' },
        { expression: "namespaceObject.metadata.name == 'default'", message: 'namespace' },
        { expression: "authorizer.group('').resource('configmaps').namespace('default').check('create').allowed()", message: 'authorizer' }
      ]
    })
    assert.equal((await cm('vars', { a: '1' }, { case: 'variables' })).statusCode, 201)
    const many = await cm('vars-many', { a: '1', b: '2' }, { case: 'variables' })
    assert.match(many.json().message, /denied request: many$/)
    const update = await req({ method: 'PUT', url: `${CMS}/vars`, payload: { metadata: { name: 'vars', labels: { case: 'variables' } }, data: { a: '2' } } })
    assert.equal(update.statusCode, 422, update.body)
    assert.match(update.json().message, /denied request: a is immutable$/)
  })

  it('Warn adds a Warning header and admits; Audit admits', async () => {
    await bound('warn', { validations: [{ expression: 'false', message: 'not nice' }] }, { validationActions: ['Warn', 'Audit'] })
    const res = await cm('warned', {}, { case: 'warn' })
    assert.equal(res.statusCode, 201, res.body)
    assert.match(String(res.headers.warning), /Validation failed for ValidatingAdmissionPolicy 'warn' with binding 'warn': not nice/)
  })

  it('failurePolicy: an evaluation error denies under Fail and is ignored under Ignore', async () => {
    const validations = [{ expression: "object.data.missing == 'x'" }]
    await bound('fail', { validations })
    const res = await cm('err', {}, { case: 'fail' })
    assert.equal(res.statusCode, 422)
    assert.match(res.json().message, /ValidatingAdmissionPolicy 'fail' with binding 'fail' denied request: expression 'object.data.missing == 'x'' resulted in error: /)
    await bound('ignore', { validations, failurePolicy: 'Ignore' })
    assert.equal((await cm('err', {}, { case: 'ignore' })).statusCode, 201)
  })

  it('stops an expensive expression at the per-expression cost limit, with the reference\'s message', async () => {
    const list = `[${Array.from({ length: 120 }, (_, i) => i).join(', ')}]`
    const expression = `${list}.all(x, ${list}.all(y, ${list}.all(z, x + y + z >= 0)))`
    await bound('costly', { validations: [{ expression }] })
    const res = await cm('c', {}, { case: 'costly' })
    assert.equal(res.statusCode, 422, res.body)
    assert.ok(res.json().message.endsWith('resulted in error: operation cancelled: actual cost limit exceeded'), res.json().message)
  })

  it('evaluates on dry run too, writing nothing', async () => {
    await bound('dry', { validations: [{ expression: "object.metadata.name != 'dry-no'" }] })
    const res = await cm('dry-no', {}, { case: 'dry' }, '?dryRun=All')
    assert.equal(res.statusCode, 422)
    const ok = await cm('dry-yes', {}, { case: 'dry' }, '?dryRun=All')
    assert.equal(ok.statusCode, 201)
    assert.equal((await req({ method: 'GET', url: `${CMS}/dry-yes` })).statusCode, 404)
  })

  it('matchConditions: a false one skips the policy', async () => {
    await bound('conditions', {
      matchConditions: [{ name: 'not-exempt', expression: "!('exempt' in object.metadata.labels)" }],
      validations: [{ expression: 'false' }]
    })
    assert.equal((await cm('cond-1', {}, { case: 'conditions' })).statusCode, 422)
    assert.equal((await cm('cond-2', {}, { case: 'conditions', exempt: 'yes' })).statusCode, 201)
  })

  it('checks custom objects, with a custom kind as the parameter too', async () => {
    const crd = (plural: string, kind: string, spec: AnyObject) => ({
      metadata: { name: `${plural}.policies.example.com` },
      spec: { group: 'policies.example.com', scope: 'Namespaced', names: { plural, kind }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }] }
    })
    await create('/apis/apiextensions.svc.io/v1/customresourcedefinitions', crd('gadgets', 'Gadget', { type: 'object', properties: { size: { type: 'integer' } } }))
    await create('/apis/apiextensions.svc.io/v1/customresourcedefinitions', crd('limits', 'Limit', { type: 'object', properties: { maxSize: { type: 'integer' } } }))
    const gadgets = '/apis/policies.example.com/v1/namespaces/default/gadgets'
    const limits = '/apis/policies.example.com/v1/namespaces/default/limits'
    for (let tries = 0; (await req({ method: 'GET', url: limits })).statusCode !== 200 || (await req({ method: 'GET', url: gadgets })).statusCode !== 200; tries++) {
      assert.ok(tries < 100, 'the custom kinds are served')
      await new Promise(resolve => setTimeout(resolve, 100))
    }
    await create(limits, { apiVersion: 'policies.example.com/v1', kind: 'Limit', metadata: { name: 'gadget-limit' }, spec: { maxSize: 3 } })
    await create(POLICIES, {
      metadata: { name: 'gadget-size' },
      spec: {
        paramKind: { apiVersion: 'policies.example.com/v1', kind: 'Limit' },
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['policies.example.com'], apiVersions: ['v1'], resources: ['gadgets'] }] },
        validations: [{ expression: 'object.spec.size <= params.spec.maxSize', messageExpression: "'size above ' + string(params.spec.maxSize)" }]
      }
    })
    await create(BINDINGS, binding('gadget-size', 'gadget-size', { paramRef: { name: 'gadget-limit', parameterNotFoundAction: 'Deny' } }))
    const gadget = (name: string, size: number) => req({ method: 'POST', url: gadgets, payload: { apiVersion: 'policies.example.com/v1', kind: 'Gadget', metadata: { name }, spec: { size } } })
    const big = await gadget('big', 5)
    assert.equal(big.statusCode, 422, big.body)
    assert.equal(big.json().message, 'gadgets.policies.example.com "big" is forbidden: ValidatingAdmissionPolicy \'gadget-size\' with binding \'gadget-size\' denied request: size above 3')
    assert.equal((await gadget('small', 2)).statusCode, 201)
  })

  it('a deleted binding stops the policy at once', async () => {
    await bound('removed', { validations: [{ expression: 'false' }] })
    assert.equal((await cm('r1', {}, { case: 'removed' })).statusCode, 422)
    assert.equal((await req({ method: 'DELETE', url: `${BINDINGS}/removed` })).statusCode, 200)
    assert.equal((await cm('r1', {}, { case: 'removed' })).statusCode, 201)
  })
})

describe('ValidatingAdmissionPolicy metrics', () => {
  const app = suiteApp()
  it('counts a denial under the policy, binding, error type and action', async () => {
    const req = (o: AnyObject) => app().request(o as any)
    assert.equal((await req({ method: 'POST', url: POLICIES, payload: policy('counted', { validations: [{ expression: 'false' }] }) })).statusCode, 201)
    assert.equal((await req({ method: 'POST', url: BINDINGS, payload: binding('counted-binding', 'counted') })).statusCode, 201)
    assert.equal((await req({ method: 'POST', url: CMS, payload: { metadata: { name: 'counted' } } })).statusCode, 422)
    const text = (await req({ method: 'GET', url: '/metrics' })).body
    assert.match(text, /apiserver_validating_admission_policy_check_total\{policy="counted",policy_binding="counted-binding",error_type="no_error",enforcement_action="deny"\} 1/)
    assert.match(text, /apiserver_validating_admission_policy_check_duration_seconds_count\{policy="counted",policy_binding="counted-binding",error_type="no_error",enforcement_action="deny"\} 1/)
  })
})
