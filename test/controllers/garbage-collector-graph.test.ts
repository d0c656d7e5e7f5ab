// The collector's owner graph and work queue on their own.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Dependent, OwnerGraph, ownerRefsOf } from '../../controllers/garbage-collector-graph.js'
import { WorkQueue } from '../../controllers/work-queue.js'

const namespaced = { prefix: '/registry/core/configmaps/', resource: { namespaced: true } } as any
const clusterScoped = { prefix: '/registry/core/persistentvolumes/', resource: { namespaced: false } } as any
const refs = (...owners: Array<[string, boolean?]>) => ownerRefsOf(owners.map(([uid, block]) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `n-${uid}`, uid, blockOwnerDeletion: block })))

describe('owner graph', () => {
  it('indexes dependents by owner uid and reports what changed', () => {
    const g = new OwnerGraph()
    const a = new Dependent(namespaced, '/registry/core/configmaps/ns1/a', 'uid-a', refs(['o1', true], ['o2']))
    assert.deepEqual(g.set(a), { changed: true, owners: ['o1', 'o2'] })
    assert.equal(a.namespace, 'ns1')
    assert.equal(a.name, 'a')
    assert.deepEqual(g.dependentsOf('o1').map(d => d.key), [a.key])
    // The same references again: nothing to do.
    assert.deepEqual(g.set(new Dependent(namespaced, a.key, 'uid-a', refs(['o1', true], ['o2']))), { changed: false, owners: [] })
    // blockOwnerDeletion dropped: the owner may now be free.
    assert.deepEqual(g.set(new Dependent(namespaced, a.key, 'uid-a', refs(['o1'], ['o2']))).owners.sort(), ['o1', 'o2'])
    const b = new Dependent(namespaced, '/registry/core/configmaps/ns1/b', 'uid-b', refs(['o1']))
    g.set(b)
    assert.equal(g.dependentsOf('o1').length, 2)
    assert.deepEqual(g.remove(a.key), ['o1', 'o2'])
    assert.equal(g.hasDependents('o2'), false)
    assert.deepEqual(g.dependentsOf('o1').map(d => d.key), [b.key])
    // References all gone: the object leaves the graph.
    assert.deepEqual(g.set(new Dependent(namespaced, b.key, 'uid-b', [])), { changed: false, owners: ['o1'] })
    assert.equal(g.dependents.size, 0)
    assert.equal(g.ownerCount, 0)
  })

  it('shares one spelling of an owner between its dependents', () => {
    const g = new OwnerGraph()
    g.set(new Dependent(namespaced, '/registry/core/configmaps/ns/x', 'x', ownerRefsOf([{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' + 'id' }])))
    g.set(new Dependent(namespaced, '/registry/core/configmaps/ns/y', 'y', ownerRefsOf([{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'ui' + 'd' }])))
    const [x, y] = g.dependentsOf('uid')
    assert.equal(x!.owners[0]!.uid, y!.owners[0]!.uid)
    assert.deepEqual(x!.owners[0], { uid: 'uid', group: '', kind: 'Pod', name: 'p', block: false })
  })

  it('reads a cluster-scoped key as namespace "" and drops malformed references', () => {
    const d = new Dependent(clusterScoped, '/registry/core/persistentvolumes/pv1', 'u', ownerRefsOf([{ kind: 'X' }, null, { apiVersion: 'storage.svc.io/v1', kind: 'StorageClass', name: 's', uid: 'k' }]))
    assert.equal(d.namespace, '')
    assert.equal(d.name, 'pv1')
    assert.deepEqual(d.owners, [{ uid: 'k', group: 'storage.svc.io', kind: 'StorageClass', name: 's', block: false }])
  })
})

describe('work queue', () => {
  it('runs an id once however often it is queued before it runs, again when queued while it runs, and retries failures', async () => {
    const ran: string[] = []
    let failOnce = true
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    const errors: string[] = []
    const done = new Promise<void>(resolve => {
      const q = new WorkQueue<string>(1, async (item) => {
        ran.push(item)
        if (item === 'first') await gate
        if (item === 'flaky' && failOnce) { failOnce = false; throw new Error('boom') }
        if (ran.includes('last') && ran.filter(r => r === 'flaky').length === 2) resolve()
      }, (_err, id) => { errors.push(id) }, 1)
      q.add('a', 'first')
      q.add('b', 'dup')
      q.add('b', 'dup')
      q.add('a', 'first-again')
      q.add('c', 'flaky')
      release()
      setImmediate(() => q.add('d', 'last'))
    })
    await done
    assert.equal(ran[0], 'first')
    assert.equal(ran.filter(r => r === 'dup').length, 1)
    assert.equal(ran.filter(r => r === 'first-again').length, 1)
    assert.deepEqual(errors, ['c'])
  })
})
