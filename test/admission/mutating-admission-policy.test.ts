// The MutatingAdmissionPolicy plugin through app.inject: an apply configuration sets a label, a
// JSON patch adds an annotation, parameters, failure policies, reinvocation, dry run.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { MAP_ON } from './map-options.js'

type AnyObject = Record<string, any>
const AR = '/apis/admissionregistration.svc.io/v1alpha1'
const POLICIES = `${AR}/mutatingadmissionpolicies`
const BINDINGS = `${AR}/mutatingadmissionpolicybindings`
const CMS = '/api/v1/namespaces/default/configmaps'

const CM_RULES = { resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }
const apply = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } })
const patch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } })

describe('MutatingAdmissionPolicy plugin', () => {
  const app = suiteApp(MAP_ON)
  const req = (method: string, url: string, payload?: AnyObject) => app().request({ method, url, ...(payload === undefined ? {} : { payload }) })
  /** A policy on configmaps whose names start with `prefix`, and its binding. */
  const install = async (name: string, prefix: string, spec: AnyObject, bindingSpec: AnyObject = {}): Promise<void> => {
    const p = await req('POST', POLICIES, { metadata: { name }, spec: { matchConstraints: CM_RULES, reinvocationPolicy: 'Never', matchConditions: [{ name: 'mine', expression: `object.metadata.name.startsWith("${prefix}")` }], ...spec } })
    assert.equal(p.statusCode, 201, p.body)
    const b = await req('POST', BINDINGS, { metadata: { name }, spec: { policyName: name, ...bindingSpec } })
    assert.equal(b.statusCode, 201, b.body)
  }
  const createCm = (name: string, extra: AnyObject = {}, query = '') => req('POST', `${CMS}${query}`, { metadata: { name, ...extra }, data: { k: 'v' } })

  it('sets a label through an apply configuration, and adds an annotation through a JSON patch', async () => {
    await install('label', 'lab-', { mutations: [apply('Object{metadata: Object.metadata{labels: {"team": "blue"}}}')] })
    await install('annotate', 'lab-', { mutations: [patch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {}}, JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/seen"), value: string(object.data.size())}]')] })
    const res = await createCm('lab-1', { labels: { keep: 'me' } })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().metadata.labels, { keep: 'me', team: 'blue' })
    assert.deepEqual(res.json().metadata.annotations, { 'example.com/seen': '1' })
    const other = await createCm('other-1')
    assert.equal(other.json().metadata.labels, undefined)
  })

  it('reads parameters a binding names', async () => {
    assert.equal((await req('POST', CMS, { metadata: { name: 'map-params' }, data: { owner: 'alice' } })).statusCode, 201)
    await install('owner', 'par-', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      mutations: [apply('Object{metadata: Object.metadata{labels: {"owner": params.data.owner}}}')]
    }, { paramRef: { name: 'map-params', namespace: 'default', parameterNotFoundAction: 'Deny' } })
    const res = await createCm('par-1')
    assert.equal(res.json().metadata.labels.owner, 'alice')
  })

  it('refuses under failurePolicy Fail in the reference\'s words, and lets the request through under Ignore', async () => {
    await install('broken', 'fail-', { mutations: [apply('Object{metadata: Object.metadata{labels: {"x": object.data.missing}}}')] })
    const res = await createCm('fail-1')
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().reason, 'Invalid')
    assert.match(res.json().message, /^policy 'broken' with binding 'broken' denied request: expression '.*' resulted in error: /)
    await install('ignored', 'ign-', { failurePolicy: 'Ignore', mutations: [patch('[JSONPatch{op: "remove", path: "/nope"}]')] })
    assert.equal((await createCm('ign-1')).statusCode, 201)
  })

  it('refuses an apply configuration of an atomic list, and mismatched nested type names', async () => {
    await install('atomic', 'atom-', {
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['services'] }] },
      mutations: [apply('Object{spec: Object.spec{externalIPs: ["192.0.2.1"]}}')]
    })
    const res = await req('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'atom-1' }, spec: { ports: [{ port: 80 }] } })
    assert.equal(res.statusCode, 403, res.body)
    assert.match(res.json().message, /may not mutate atomic arrays, maps or structs: \.spec\.externalIPs/)
    await install('misnamed', 'name-', { mutations: [apply('Object{metadata: Object.spec{labels: {"a": "b"}}}')] })
    const res2 = await createCm('name-1')
    assert.match(res2.json().message, /type mismatch: unexpected type name "Object.spec", expected "Object.metadata"/)
  })

  it('sets a `?field:` only when its optional has a value', async () => {
    await install('optional', 'opt-', {
      mutations: [apply('Object{metadata: Object.metadata{?labels: has(object.metadata.annotations) ? optional.of({"annotated": "yes"}) : optional.none(), ?annotations: optional.none()}}')]
    })
    const plain = await createCm('opt-1')
    assert.equal(plain.statusCode, 201, plain.body)
    assert.equal(plain.json().metadata.labels, undefined)
    assert.equal(plain.json().metadata.annotations, undefined)
    const annotated = await createCm('opt-2', { annotations: { a: 'b' } })
    assert.deepEqual(annotated.json().metadata.labels, { annotated: 'yes' })
    assert.deepEqual(annotated.json().metadata.annotations, { a: 'b' })
  })

  it('builds apply configurations and patches in variables', async () => {
    await install('from-variables', 'var-', {
      variables: [
        { name: 'labels', expression: 'Object.metadata{labels: {"via": "variable"}}' },
        { name: 'config', expression: 'Object{metadata: variables.labels}' },
        { name: 'patches', expression: '[JSONPatch{op: "add", path: "/data/added", value: "yes"}]' }
      ],
      mutations: [apply('variables.config'), patch('variables.patches')]
    })
    const res = await createCm('var-1')
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().metadata.labels, { via: 'variable' })
    assert.equal(res.json().data.added, 'yes')
  })

  it('a failed JSON patch test leaves the object as it is', async () => {
    await install('tested', 'test-', { mutations: [patch('[JSONPatch{op: "test", path: "/data/k", value: "other"}, JSONPatch{op: "add", path: "/data/t", value: "1"}]')] })
    const res = await createCm('test-1')
    assert.deepEqual(res.json().data, { k: 'v' })
  })

  it('runs an IfNeeded policy again when a later policy changed the object', async () => {
    // `a-` runs first (by name) and copies the label `z` writes; only a second run sees it.
    await install('re-a', 're-', { reinvocationPolicy: 'IfNeeded', mutations: [apply('Object{metadata: Object.metadata{labels: {"copy": object.metadata.?labels.z.orValue("none")}}}')] })
    await install('re-z', 're-', { mutations: [apply('Object{metadata: Object.metadata{labels: {"z": "set"}}}')] })
    const res = await createCm('re-1')
    assert.deepEqual(res.json().metadata.labels, { copy: 'set', z: 'set' })
  })

  it('mutates on dry run without storing', async () => {
    await install('dry', 'dry-', { mutations: [apply('Object{metadata: Object.metadata{labels: {"dry": "yes"}}}')] })
    const res = await createCm('dry-1', {}, '?dryRun=All')
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().metadata.labels.dry, 'yes')
    assert.equal((await req('GET', `${CMS}/dry-1`)).statusCode, 404)
  })
})
