// kubectl delete --cascade against the real server: an owner → 10 dependents → 3 each, deleted
// in each of the three modes, leaves what the reference server leaves.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startServer } from '../helpers/server.js'
import { kubectlFor } from '../helpers/kubectl.js'

const MIDS = 10
const LEAVES = 3

test('kubectl delete --cascade=background|foreground|orphan', async (t) => {
  const server = await startServer(t)
  const kc = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33' })
  const kubectl = (...args: string[]) => kc.ok(args)
  const tree = async (ns: string) => JSON.parse(await kubectl('get', 'cm', '-n', ns, '-l', 'tree', '-o', 'json')).items as any[]
  const createAll = async (ns: string, items: any[]) => {
    const file = join(server.dataDir, `${ns}-${items.length}.json`)
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }))
    await kubectl('create', '-n', ns, '-f', file)
  }
  const cm = (name: string, level: string, owner?: any) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      labels: { tree: 'yes', level },
      ...(owner === undefined ? {} : { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid, blockOwnerDeletion: true }] })
    }
  })

  async function build (ns: string): Promise<void> {
    await kubectl('create', 'namespace', ns)
    await createAll(ns, [cm('owner', 'owner')])
    const owner = (await tree(ns))[0]
    await createAll(ns, Array.from({ length: MIDS }, (_, i) => cm(`mid-${i}`, 'mid', owner)))
    const mids = (await tree(ns)).filter(o => o.metadata.labels.level === 'mid')
    assert.equal(mids.length, MIDS)
    await createAll(ns, mids.flatMap(m => Array.from({ length: LEAVES }, (_, j) => cm(`${m.metadata.name as string}-leaf-${j}`, 'leaf', m))))
    assert.equal((await tree(ns)).length, 1 + MIDS + MIDS * LEAVES)
  }

  for (const mode of ['background', 'foreground', 'orphan']) await build(`cascade-${mode}`)

  // Foreground: kubectl waits for the owner, which goes only after every blocking dependent.
  assert.match(await kubectl('delete', 'cm', 'owner', '-n', 'cascade-foreground', '--cascade=foreground'), /configmap "owner" deleted/)
  assert.deepEqual((await tree('cascade-foreground')).map(o => o.metadata.name), [])

  // Orphan: the owner goes; its dependents stay without the reference, theirs keep theirs.
  assert.match(await kubectl('delete', 'cm', 'owner', '-n', 'cascade-orphan', '--cascade=orphan'), /configmap "owner" deleted/)
  // Background: the owner at once, the rest after.
  assert.match(await kubectl('delete', 'cm', 'owner', '-n', 'cascade-background', '--cascade=background'), /configmap "owner" deleted/)
  for (let i = 0; i < 150 && (await tree('cascade-background')).length > 0; i++) await sleep(100)
  assert.deepEqual((await tree('cascade-background')).map(o => o.metadata.name), [])

  // By now the background tree, created and deleted after the orphan one, is gone: the orphans stayed.
  const left = await tree('cascade-orphan')
  assert.equal(left.length, MIDS + MIDS * LEAVES)
  for (const o of left) {
    if (o.metadata.labels.level === 'mid') assert.equal(o.metadata.ownerReferences, undefined)
    else assert.equal(o.metadata.ownerReferences.length, 1)
  }

  // Deleting the namespace takes the orphans too.
  await kubectl('delete', 'namespace', 'cascade-orphan')
  await assert.rejects(kubectl('get', 'namespace', 'cascade-orphan'), /NotFound|not found/)
})
