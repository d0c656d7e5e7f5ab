// The node lifecycle controller, with short periods: a node that stops renewing its Lease and
// posting status goes Unknown and is tainted unreachable; one that keeps renewing does not; one
// back to Ready loses the unreachable taints; one that never reported goes Unknown as never updated;
// a node's conditions and cordon bring the reference's NoSchedule and NoExecute taints.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'
import { NAMESPACES, NODE_TAINTS } from '../../resources/naming.js'
import { parseFlags } from '../../bin/flags.js'
import { DEFAULT_GRACE_PERIOD_MS, DEFAULT_MONITOR_PERIOD_MS, DEFAULT_STARTUP_GRACE_PERIOD_MS } from '../../controllers/node-lifecycle.js'

type Obj = Record<string, any>
const nodes = '/api/v1/nodes'
const leases = `/apis/coordination.svc.io/v1/namespaces/${NAMESPACES.nodeLease}/leases`
const mergePatch = { 'content-type': 'application/merge-patch+json' }

const GRACE_MS = 1500
const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z')
const readyNode = (name: string) => ({
  metadata: { name },
  status: {
    conditions: [
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now(), lastTransitionTime: now() },
      { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available', lastHeartbeatTime: now(), lastTransitionTime: now() }
    ]
  }
})
const condition = (node: Obj, type: string): Obj | undefined => (node.status?.conditions ?? []).find((c: Obj) => c.type === type)
const unreachable = (node: Obj): Obj[] => (node.spec?.taints ?? []).filter((t: Obj) => t.key === NODE_TAINTS.unreachable)

describe('node lifecycle controller', () => {
  const app = suiteApp({ nodeLifecycle: { monitorPeriodMs: 100, gracePeriodMs: GRACE_MS, startupGracePeriodMs: GRACE_MS } })
  let renewing = true
  after(() => { renewing = false })

  /** Polls the node until `done` holds of it; fails with its last state. */
  async function eventually (name: string, done: (node: Obj) => boolean, ms = 15_000): Promise<Obj> {
    let last: Obj = {}
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
      last = (await app().request({ method: 'GET', url: `${nodes}/${name}` })).json()
      if (done(last)) return last
    }
    assert.fail(`${name} never reached the state: ${JSON.stringify({ spec: last.spec, status: last.status })}`)
  }

  /** The node agent's lease loop: renews the node's Lease every 200ms while the tests run. */
  async function keepRenewing (name: string): Promise<void> {
    const micro = () => new Date().toISOString().replace('Z', '000Z')
    const created = await app().request({ method: 'POST', url: leases, payload: { metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() } } })
    assert.equal(created.statusCode, 201, created.body)
    void (async () => {
      while (renewing) {
        await sleep(200)
        if (!renewing) break
        await app().request({ method: 'PATCH', url: `${leases}/${name}`, headers: mergePatch, payload: { spec: { renewTime: micro() } } }).catch(() => undefined)
      }
    })()
  }

  it('marks a silent node Unknown and unreachable, but not one that renews its Lease; and lifts the taints once it is Ready again', async () => {
    for (const name of ['silent', 'alive']) {
      const res = await app().request({ method: 'POST', url: nodes, payload: readyNode(name) })
      assert.equal(res.statusCode, 201, res.body)
    }
    await keepRenewing('alive')

    const silent = await eventually('silent', n => condition(n, 'Ready')?.status === 'Unknown' && unreachable(n).length === 2)
    const ready = condition(silent, 'Ready')!
    assert.equal(ready.reason, 'NodeStatusUnknown')
    assert.equal(ready.message, 'Kubelet stopped posting node status.')
    assert.ok(Date.parse(ready.lastTransitionTime) > Date.parse(silent.metadata.creationTimestamp) - 1000)
    assert.deepEqual(condition(silent, 'MemoryPressure')!.status, 'Unknown')
    assert.equal(condition(silent, 'MemoryPressure')!.reason, 'NodeStatusUnknown')
    for (const type of ['DiskPressure', 'PIDPressure']) {
      assert.deepEqual({ ...condition(silent, type), lastTransitionTime: undefined },
        { type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: silent.metadata.creationTimestamp, lastTransitionTime: undefined })
    }
    const taints = unreachable(silent)
    assert.deepEqual(taints.find(t => t.effect === 'NoSchedule'), { key: NODE_TAINTS.unreachable, effect: 'NoSchedule' })
    const noExecute = taints.find(t => t.effect === 'NoExecute')!
    assert.ok(!Number.isNaN(Date.parse(noExecute.timeAdded)), JSON.stringify(noExecute))
    // The admission plugin's not-ready taint gave way to the unreachable ones.
    assert.ok(!silent.spec.taints.some((t: Obj) => t.key === NODE_TAINTS.notReady), JSON.stringify(silent.spec.taints))

    // The same grace has passed for the node renewing its Lease.
    const alive = (await app().request({ method: 'GET', url: `${nodes}/alive` })).json()
    assert.equal(condition(alive, 'Ready')!.status, 'True')
    assert.deepEqual(unreachable(alive), [])

    const back = await app().request({
      method: 'PATCH', url: `${nodes}/silent/status`, headers: mergePatch,
      payload: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now(), lastTransitionTime: now() }] } }
    })
    assert.equal(back.statusCode, 200, back.body)
    await keepRenewing('silent')
    const lifted = await eventually('silent', n => unreachable(n).length === 0)
    assert.equal(condition(lifted, 'Ready')!.status, 'True')
    assert.deepEqual(lifted.spec.taints ?? [], [])
  })

  it('marks a node that never reported as never updated once the startup grace is over', async () => {
    const res = await app().request({ method: 'POST', url: nodes, payload: { metadata: { name: 'mute' } } })
    assert.equal(res.statusCode, 201, res.body)
    const mute = await eventually('mute', n => condition(n, 'Ready')?.status === 'Unknown' && unreachable(n).length === 2)
    assert.deepEqual(condition(mute, 'Ready'), {
      type: 'Ready', status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.',
      lastHeartbeatTime: mute.metadata.creationTimestamp, lastTransitionTime: condition(mute, 'Ready')!.lastTransitionTime
    })
  })

  it('taints by condition as the reference\'s tainting passes, and keeps taints it does not own', async () => {
    const node: Obj = readyNode('pressed')
    node.status.conditions[0] = { ...node.status.conditions[0], status: 'False', reason: 'KubeletNotReady' }
    node.status.conditions[1] = { ...node.status.conditions[1], status: 'True', reason: 'KubeletHasInsufficientMemory' }
    node.status.conditions.push({ type: 'DiskPressure', status: 'True' }, { type: 'PIDPressure', status: 'True' }, { type: 'NetworkUnavailable', status: 'True' })
    const res = await app().request({ method: 'POST', url: nodes, payload: { ...node, spec: { unschedulable: true, taints: [{ key: 'example.com/own', effect: 'NoSchedule' }] } } })
    assert.equal(res.statusCode, 201, res.body)
    await keepRenewing('pressed')
    const keys = (n: Obj): string[] => (n.spec?.taints ?? []).map((t: Obj) => `${t.key}:${t.effect}`).sort()
    const want = ['example.com/own:NoSchedule', `${NODE_TAINTS.notReady}:NoExecute`, `${NODE_TAINTS.notReady}:NoSchedule`, `${NODE_TAINTS.memoryPressure}:NoSchedule`,
      `${NODE_TAINTS.diskPressure}:NoSchedule`, `${NODE_TAINTS.pidPressure}:NoSchedule`, `${NODE_TAINTS.networkUnavailable}:NoSchedule`, `${NODE_TAINTS.unschedulable}:NoSchedule`].sort()
    const tainted = await eventually('pressed', n => JSON.stringify(keys(n)) === JSON.stringify(want))
    assert.ok(!Number.isNaN(Date.parse(tainted.spec.taints.find((t: Obj) => t.effect === 'NoExecute').timeAdded)))
    assert.equal(tainted.spec.taints.find((t: Obj) => t.key === NODE_TAINTS.memoryPressure).timeAdded, undefined)

    // Ready, relieved and uncordoned: only the node's own taint is left.
    const conditions = [{ type: 'Ready', status: 'True', lastHeartbeatTime: now() }, { type: 'MemoryPressure', status: 'False' }, { type: 'DiskPressure', status: 'False' }, { type: 'PIDPressure', status: 'False' }, { type: 'NetworkUnavailable', status: 'False' }]
    assert.equal((await app().request({ method: 'PATCH', url: `${nodes}/pressed/status`, headers: mergePatch, payload: { status: { conditions } } })).statusCode, 200)
    assert.equal((await app().request({ method: 'PATCH', url: `${nodes}/pressed`, headers: mergePatch, payload: { spec: { unschedulable: null } } })).statusCode, 200)
    await eventually('pressed', n => JSON.stringify(keys(n)) === JSON.stringify(['example.com/own:NoSchedule']))
  })

  it('takes its periods from the reference controller manager\'s flags', () => {
    assert.deepEqual([DEFAULT_MONITOR_PERIOD_MS, DEFAULT_GRACE_PERIOD_MS, DEFAULT_STARTUP_GRACE_PERIOD_MS], [5_000, 50_000, 60_000])
    const flags = parseFlags(['--node-monitor-grace-period=20s', '--node-monitor-period=1s', '--node-startup-grace-period=2m'], {})
    assert.deepEqual([flags.nodeMonitorPeriodMs, flags.nodeMonitorGracePeriodMs, flags.nodeStartupGracePeriodMs], [1_000, 20_000, 120_000])
    const defaults = parseFlags([], {})
    assert.deepEqual([defaults.nodeMonitorPeriodMs, defaults.nodeMonitorGracePeriodMs, defaults.nodeStartupGracePeriodMs], [5_000, 50_000, 60_000])
  })
})
