// The events API through kubectl: an Event created through events.svc.io/v1 with `kubectl
// create` is read back by `kubectl get` in both APIs and listed by `kubectl events` (which
// reads core v1 Events, by involvedObject field selectors with --for); a core Event shows
// through events.svc.io/v1 under the new names. Run with kubectl 1.27 (the first with a GA
// `kubectl events`) and 1.33.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { GROUPS } from '../../resources/naming.js'

const EVENTS = GROUPS.events
const KUBECTLS = ['1.27', '1.33']

const manifest = (name: string, podName: string): string => `apiVersion: ${EVENTS}/v1
kind: Event
metadata:
  name: ${name}
  namespace: default
eventTime: "2026-01-01T00:00:00.000000Z"
reportingController: example.com/scheduler
reportingInstance: scheduler-1
action: Binding
reason: Scheduled
type: Normal
note: Assigned default/${podName} to node-1
regarding:
  apiVersion: v1
  kind: Pod
  namespace: default
  name: ${podName}
`

const coreEvent = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'pulled', namespace: 'default' },
  involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'db' },
  reason: 'Pulled',
  message: 'Container image pulled',
  source: { component: 'svclet', host: 'node-1' },
  count: 2,
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:01:00Z',
  type: 'Warning'
})

test('kubectl create, get and events through events.svc.io/v1 and core v1', { skip: KUBECTLS.every(v => hasKubectl(v)) ? false : 'kubectl 1.27 and 1.33 are needed' }, async (t) => {
  const server = await startServer(t)
  const dir = mkdtempSync(join(tmpdir(), 'events-e2e-'))
  for (const [i, version] of KUBECTLS.entries()) {
    const kc = kubectlFor({ kubeconfig: server.kubeconfig, version })
    const kubectl = (...args: string[]) => kc.ok(args)
    const name = `scheduled-${i}`
    const file = join(dir, `${name}.yaml`)
    writeFileSync(file, manifest(name, `web-${i}`))
    assert.match(await kubectl('create', '-f', file), new RegExp(`event\\.${EVENTS.replace(/\./g, '\\.')}/${name} created`))

    const viaV1 = JSON.parse(await kubectl('get', `events.v1.${EVENTS}`, name, '-o', 'json'))
    assert.equal(viaV1.apiVersion, `${EVENTS}/v1`)
    assert.equal(viaV1.regarding.name, `web-${i}`)
    assert.equal(viaV1.note, `Assigned default/web-${i} to node-1`)
    const viaCore = JSON.parse(await kubectl('get', 'events.v1.', name, '-o', 'json'))
    assert.equal(viaCore.apiVersion, 'v1')
    assert.equal(viaCore.involvedObject.name, `web-${i}`)
    assert.equal(viaCore.message, viaV1.note)
    assert.equal(viaCore.reportingComponent, 'example.com/scheduler')
    assert.equal(viaCore.metadata.uid, viaV1.metadata.uid)

    // kubectl events lists the core Events: the one created through events.svc.io/v1 included.
    const listed = await kubectl('events', '-n', 'default')
    assert.match(listed, /LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/)
    assert.match(listed, new RegExp(`Normal\\s+Scheduled\\s+Pod/web-${i}\\s+Assigned default/web-${i} to node-1`))
    const forPod = await kubectl('events', '-n', 'default', '--for', `pod/web-${i}`)
    assert.match(forPod, /Scheduled/)
    assert.doesNotMatch(forPod, /Pulled/)
  }

  const kc = kubectlFor({ kubeconfig: server.kubeconfig, version: KUBECTLS[1]! })
  const kubectl = (...args: string[]) => kc.ok(args)
  const coreFile = join(dir, 'pulled.json')
  writeFileSync(coreFile, coreEvent)
  await kubectl('create', '-f', coreFile)
  const pulled = JSON.parse(await kubectl('get', `events.v1.${EVENTS}`, 'pulled', '-o', 'json'))
  assert.equal(pulled.regarding.name, 'db')
  assert.equal(pulled.note, 'Container image pulled')
  assert.deepEqual(pulled.deprecatedSource, { component: 'svclet', host: 'node-1' })
  assert.equal(pulled.deprecatedCount, 2)
  assert.match(await kubectl('events', '-n', 'default', '--types', 'Warning'), /Warning\s+Pulled\s+Pod\/db\s+Container image pulled/)
  // The events/v1 table: kubectl get's columns come from the server.
  assert.match(await kubectl('get', `events.v1.${EVENTS}`, '-n', 'default'), /pod\/db\s+Container image pulled/)
  // Discovery lists the group, so api-resources names both.
  const resources = await kubectl('api-resources', '-o', 'name')
  assert.match(resources, /^events$/m)
  assert.match(resources, new RegExp(`^events\\.${EVENTS.replace(/\./g, '\\.')}$`, 'm'))
})
