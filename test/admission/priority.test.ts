// Priority and PriorityClass: the system classes, the class rules, a pod's priority from its
// class or the global default, a missing class or a contradicting value refused, one default.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from '../resources/suite.js'
import { buildTestApp } from '../helpers/app.js'

const classes = '/apis/scheduling.svc.io/v1/priorityclasses'
const pods = '/api/v1/namespaces/default/pods'
const container = { name: 'a', image: 'nginx:1.27' }

describe('PriorityClass and Priority admission', () => {
  const app = suiteApp()
  const createClass = (body: Record<string, unknown>) => app().request({ method: 'POST', url: classes, payload: body })
  const createPod = (name: string, spec: Record<string, unknown> = {}) =>
    app().request({ method: 'POST', url: pods, payload: { metadata: { name }, spec: { containers: [container], ...spec } } })

  it('has the two system classes from the start', async () => {
    const list = await app().request({ method: 'GET', url: classes })
    assert.equal(list.statusCode, 200, list.body)
    const byName = Object.fromEntries(list.json().items.map((c: { metadata: { name: string }, value: number, preemptionPolicy: string }) => [c.metadata.name, c]))
    assert.equal(byName['system-cluster-critical'].value, 2000000000)
    assert.equal(byName['system-node-critical'].value, 2000001000)
    assert.equal(byName['system-node-critical'].preemptionPolicy, 'PreemptLowerPriority')
  })

  it('validates classes: reserved system- names, the user ceiling, the policy, immutable value', async () => {
    assertInvalid(await createClass({ metadata: { name: 'system-mine' }, value: 10 }), 'metadata.name', 'FieldValueForbidden',
      "priority class names with 'system-' prefix are reserved for system use only. error: name system-mine is not a known system priority class")
    assertInvalid(await createClass({ metadata: { name: 'huge' }, value: 1000000001 }), 'value', 'FieldValueForbidden', 'maximum allowed value of a user defined priority is 1000000000')
    assertInvalid(await createClass({ metadata: { name: 'odd' }, value: 1, preemptionPolicy: 'Sometimes' }), 'preemptionPolicy', 'FieldValueNotSupported')
    const high = await createClass({ metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never', description: 'important' })
    assert.equal(high.statusCode, 201, high.body)
    const changed = await app().request({ method: 'PUT', url: `${classes}/high`, payload: { ...(high.json() as Record<string, unknown>), value: 2000 } })
    assertInvalid(changed, 'value', 'FieldValueForbidden', 'may not be changed in an update.')
  })

  it('gives a pod without class priority 0 and PreemptLowerPriority while no default exists', async () => {
    const res = await createPod('plain')
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.priority, 0)
    assert.equal(res.json().spec.preemptionPolicy, 'PreemptLowerPriority')
    assert.equal(res.json().spec.priorityClassName, undefined)
  })

  it('takes priority and preemption policy from the named class', async () => {
    const res = await createPod('important', { priorityClassName: 'high' })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.priority, 1000)
    assert.equal(res.json().spec.preemptionPolicy, 'Never')
    const critical = await createPod('critical', { priorityClassName: 'system-node-critical' })
    assert.equal(critical.json().spec.priority, 2000001000)
  })

  it('refuses a missing class and values that contradict the class', async () => {
    const missing = await createPod('lost', { priorityClassName: 'nowhere' })
    assert.equal(missing.statusCode, 403, missing.body)
    assert.equal(missing.json().message, 'pods "lost" is forbidden: no PriorityClass with name nowhere was found')
    const value = await createPod('sneaky', { priorityClassName: 'high', priority: 5 })
    assert.equal(value.statusCode, 403, value.body)
    assert.equal(value.json().message, 'pods "sneaky" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name')
    const policy = await createPod('pushy', { priorityClassName: 'high', preemptionPolicy: 'PreemptLowerPriority' })
    assert.equal(policy.statusCode, 403, policy.body)
    assert.equal(policy.json().message, 'pods "pushy" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name')
    const same = await createPod('consistent', { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' })
    assert.equal(same.statusCode, 201, same.body)
  })

  it('uses the one global default class and refuses a second default', async () => {
    const first = await createClass({ metadata: { name: 'standard' }, value: 100, globalDefault: true })
    assert.equal(first.statusCode, 201, first.body)
    const second = await createClass({ metadata: { name: 'other' }, value: 50, globalDefault: true })
    assert.equal(second.statusCode, 403, second.body)
    assert.equal(second.json().message, 'priorityclasses.scheduling.svc.io "other" is forbidden: PriorityClass standard is marked as default. Only one default can exist')
    const high = (await app().request({ method: 'GET', url: `${classes}/high` })).json()
    const promote = await app().request({ method: 'PUT', url: `${classes}/high`, payload: { ...high, globalDefault: true } })
    assert.equal(promote.statusCode, 403, promote.body)
    const standard = (await app().request({ method: 'GET', url: `${classes}/standard` })).json()
    const relabel = await app().request({ method: 'PUT', url: `${classes}/standard`, payload: { ...standard, description: 'the default' } })
    assert.equal(relabel.statusCode, 200, relabel.body)

    const pod = await createPod('defaulted')
    assert.equal(pod.statusCode, 201, pod.body)
    assert.equal(pod.json().spec.priorityClassName, 'standard')
    assert.equal(pod.json().spec.priority, 100)
  })

  it('keeps a pod\'s priority through an update that leaves it out', async () => {
    const current = (await app().request({ method: 'GET', url: `${pods}/important` })).json()
    delete current.spec.priority
    delete current.spec.preemptionPolicy
    current.metadata.labels = { touched: 'yes' }
    const res = await app().request({ method: 'PUT', url: `${pods}/important`, payload: current })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().spec.priority, 1000)
    assert.equal(res.json().spec.preemptionPolicy, 'Never')
  })

  it('shows the reference server\'s columns', async () => {
    const res = await app().request({ method: 'GET', url: classes, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })
    assert.deepEqual(res.json().columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy'])
  })
})

describe('Priority admission disabled', () => {
  it('leaves pods without priority', async (t) => {
    const other = await buildTestApp(t, { admission: { disable: ['Priority'] } })
    const res = await other.request({ method: 'POST', url: pods, payload: { metadata: { name: 'p' }, spec: { containers: [container], priorityClassName: 'nowhere' } } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.priority, undefined)
  })
})
