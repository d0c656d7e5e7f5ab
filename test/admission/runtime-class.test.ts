// The RuntimeClass admission plugin (on by default): overhead and scheduling copied from the
// class a new pod names; a missing class, a different overhead and a conflicting node selector
// refused with the reference server's messages.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS } from '../../resources/naming.js'

const pods = '/api/v1/namespaces/default/pods'
const classes = `/apis/${GROUPS.node}/v1/runtimeclasses`
const container = { name: 'a', image: 'nginx:1.27' }

async function setup (t: Parameters<typeof buildTestApp>[0], opts: Parameters<typeof buildTestApp>[1] = {}) {
  const app = await buildTestApp(t, opts)
  const created = await app.request({
    method: 'POST',
    url: classes,
    payload: {
      metadata: { name: 'sandboxed' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: {
        nodeSelector: { sandbox: 'true' },
        tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }, { key: 'gpu', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }]
      }
    }
  })
  assert.equal(created.statusCode, 201, created.body)
  assert.equal((await app.request({ method: 'POST', url: classes, payload: { metadata: { name: 'plain' }, handler: 'runc' } })).statusCode, 201)
  const pod = (name: string, spec: Record<string, unknown>) => app.request({ method: 'POST', url: pods, payload: { metadata: { name }, spec: { containers: [container], ...spec } } })
  return { ...app, pod }
}

describe('RuntimeClass admission', () => {
  it('sets the overhead and merges the node selector and tolerations of the class', async (t) => {
    const { pod } = await setup(t)
    const res = await pod('sandboxed', {
      runtimeClassName: 'sandboxed',
      nodeSelector: { zone: 'a' },
      // One the class also gives, and one the class's Exists toleration covers.
      tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }, { key: 'gpu', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }]
    })
    assert.equal(res.statusCode, 201, res.body)
    const spec = res.json().spec
    assert.deepEqual(spec.overhead, { cpu: '250m', memory: '120Mi' })
    assert.deepEqual(spec.nodeSelector, { zone: 'a', sandbox: 'true' })
    const own = spec.tolerations.filter((t: { key: string }) => t.key === 'sandbox' || t.key === 'gpu')
    assert.deepEqual(own, [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }, { key: 'gpu', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }])
  })

  it('accepts an overhead equal to the class\'s and refuses a different one', async (t) => {
    const { pod } = await setup(t)
    const same = await pod('same', { runtimeClassName: 'sandboxed', overhead: { cpu: '0.25', memory: '120Mi' } })
    assert.equal(same.statusCode, 201, same.body)
    const other = await pod('other', { runtimeClassName: 'sandboxed', overhead: { cpu: '1' } })
    assert.equal(other.statusCode, 403, other.body)
    assert.equal(other.json().reason, 'Forbidden')
    assert.equal(other.json().message, 'pods "other" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead')
    const without = await pod('without', { runtimeClassName: 'plain', overhead: { cpu: '1' } })
    assert.equal(without.statusCode, 403, without.body)
    assert.equal(without.json().message, 'pods "without" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead')
  })

  it('refuses a class that does not exist and a node selector that conflicts with the class', async (t) => {
    const { pod } = await setup(t)
    const missing = await pod('missing', { runtimeClassName: 'nope' })
    assert.equal(missing.statusCode, 403, missing.body)
    assert.equal(missing.json().message, 'pods "missing" is forbidden: pod rejected: RuntimeClass "nope" not found')
    const conflict = await pod('conflict', { runtimeClassName: 'sandboxed', nodeSelector: { sandbox: 'false' } })
    assert.equal(conflict.statusCode, 403, conflict.body)
    assert.equal(conflict.json().message, 'pods "conflict" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = true; pod.spec.nodeSelector[sandbox] = false')
  })

  it('leaves pods without a class alone, and does nothing once disabled', async (t) => {
    const { pod } = await setup(t)
    const res = await pod('bare', {})
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.overhead, undefined)
    assert.equal(res.json().spec.nodeSelector, undefined)
    const off = await setup(t, { admission: { disable: ['RuntimeClass'] } })
    const unchecked = await off.pod('unchecked', { runtimeClassName: 'nope' })
    assert.equal(unchecked.statusCode, 201, unchecked.body)
  })
})
