// PodNodeSelector and PodTolerationRestriction (alpha, off by default): namespace annotations
// and --admission-control-config-file settings, merged into new pods or refusing them; and
// SecurityContextDeny (deprecated, off by default).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.js'
import { MEMORY_PRESSURE_TAINT, SCHEDULER_ANNOTATIONS } from '../../resources/naming.js'

type App = Awaited<ReturnType<typeof buildTestApp>>
const container = { name: 'a', image: 'nginx:1.27' }

function configFile (plugins: Array<{ name: string, configuration: unknown }>): string {
  const dir = mkdtempSync(join(tmpdir(), 'admission-config-'))
  const file = join(dir, 'admission.json')
  writeFileSync(file, JSON.stringify({ apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration', plugins }))
  return file
}

async function namespace (app: App, name: string, annotations: Record<string, string> = {}): Promise<void> {
  const res = await app.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name, annotations } } })
  assert.equal(res.statusCode, 201, res.body)
}

const pod = (app: App, ns: string, name: string, spec: Record<string, unknown> = {}) =>
  app.request({ method: 'POST', url: `/api/v1/namespaces/${ns}/pods`, payload: { metadata: { name }, spec: { containers: [container], ...spec } } })

describe('PodNodeSelector', () => {
  const config = configFile([{ name: 'PodNodeSelector', configuration: { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env=dev', fenced: 'env=prod,tier=web' } } }])

  it('merges the namespace\'s selector, else the cluster default, into new pods', async (t) => {
    const app = await buildTestApp(t, { admission: { enable: ['PodNodeSelector'], configFile: config } })
    await namespace(app, 'annotated', { [SCHEDULER_ANNOTATIONS.nodeSelector]: 'env=prod, disk = ssd' })
    await namespace(app, 'plain')
    const annotated = await pod(app, 'annotated', 'a', { nodeSelector: { zone: 'z1' } })
    assert.equal(annotated.statusCode, 201, annotated.body)
    assert.deepEqual(annotated.json().spec.nodeSelector, { env: 'prod', disk: 'ssd', zone: 'z1' })
    const plain = await pod(app, 'plain', 'b')
    assert.deepEqual(plain.json().spec.nodeSelector, { env: 'dev' })
    await namespace(app, 'open', { [SCHEDULER_ANNOTATIONS.nodeSelector]: '' })
    const open = await pod(app, 'open', 'c')
    assert.equal(open.json().spec.nodeSelector, undefined)
  })

  it('refuses a pod whose selector conflicts with the namespace\'s or leaves its whitelist', async (t) => {
    const app = await buildTestApp(t, { admission: { enable: ['PodNodeSelector'], configFile: config } })
    await namespace(app, 'annotated', { [SCHEDULER_ANNOTATIONS.nodeSelector]: 'env=prod' })
    const conflict = await pod(app, 'annotated', 'x', { nodeSelector: { env: 'dev' } })
    assert.equal(conflict.statusCode, 403, conflict.body)
    assert.equal(conflict.json().message, 'pods "x" is forbidden: pod node label selector conflicts with its namespace node label selector')
    await namespace(app, 'fenced', { [SCHEDULER_ANNOTATIONS.nodeSelector]: 'env=prod' })
    const within = await pod(app, 'fenced', 'in', { nodeSelector: { tier: 'web' } })
    assert.equal(within.statusCode, 201, within.body)
    const outside = await pod(app, 'fenced', 'out', { nodeSelector: { tier: 'db' } })
    assert.equal(outside.statusCode, 403, outside.body)
    assert.equal(outside.json().message, 'pods "out" is forbidden: pod node label selector labels conflict with its namespace whitelist')
    await namespace(app, 'broken', { [SCHEDULER_ANNOTATIONS.nodeSelector]: 'env' })
    const broken = await pod(app, 'broken', 'b')
    assert.equal(broken.statusCode, 403, broken.body)
    assert.match(broken.json().message, /invalid selector: \[env\]/)
  })

  it('stops start-up on a malformed selector in its configuration, and is off by default', async (t) => {
    const bad = configFile([{ name: 'PodNodeSelector', configuration: { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'a=b=c' } } }])
    await assert.rejects(buildTestApp(t, { admission: { enable: ['PodNodeSelector'], configFile: bad } }), /PodNodeSelector: podNodeSelectorPluginConfig.clusterDefaultNodeSelector: invalid selector/)
    const app = await buildTestApp(t, { admission: { configFile: config } })
    const res = await pod(app, 'default', 'free')
    assert.equal(res.json().spec.nodeSelector, undefined)
  })
})

describe('PodTolerationRestriction', () => {
  const config = configFile([{
    name: 'PodTolerationRestriction',
    configuration: {
      apiVersion: 'podtolerationrestriction.admission.svc.io/v1alpha1',
      kind: 'Configuration',
      default: [{ key: 'cluster-default', operator: 'Exists', effect: 'NoSchedule' }],
      whitelist: [{ operator: 'Exists', effect: 'NoExecute' }, { key: 'cluster-default', operator: 'Exists' }]
    }
  }])
  const defaults = JSON.stringify([{ key: 'team', operator: 'Equal', value: 'blue', effect: 'NoSchedule' }])
  const whitelist = JSON.stringify([{ key: 'team', operator: 'Exists' }, { operator: 'Exists', effect: 'NoExecute' }, { key: MEMORY_PRESSURE_TAINT, operator: 'Exists', effect: 'NoSchedule' }])

  it('adds the namespace\'s default tolerations, else the configured ones, and memory pressure for pods with resources', async (t) => {
    const app = await buildTestApp(t, { admission: { enable: ['PodTolerationRestriction'], configFile: config } })
    await namespace(app, 'blue', { [SCHEDULER_ANNOTATIONS.defaultTolerations]: defaults, [SCHEDULER_ANNOTATIONS.tolerationsWhitelist]: whitelist })
    const res = await pod(app, 'blue', 'p', { containers: [{ ...container, resources: { requests: { cpu: '100m' } } }] })
    assert.equal(res.statusCode, 201, res.body)
    const keys = res.json().spec.tolerations.map((t: { key?: string }) => t.key)
    assert.ok(keys.includes('team'), res.body)
    assert.ok(keys.includes(MEMORY_PRESSURE_TAINT), res.body)
    const clusterWide = await pod(app, 'default', 'q')
    assert.equal(clusterWide.statusCode, 201, clusterWide.body)
    const tolerations = clusterWide.json().spec.tolerations
    assert.deepEqual(tolerations.find((t: { key?: string }) => t.key === 'cluster-default'), { key: 'cluster-default', operator: 'Exists', effect: 'NoSchedule' })
    assert.equal(tolerations.some((t: { key?: string }) => t.key === MEMORY_PRESSURE_TAINT), false, 'a BestEffort pod does not get the memory pressure toleration')
  })

  it('refuses tolerations the namespace\'s whitelist, else the configured one, does not cover', async (t) => {
    const app = await buildTestApp(t, { admission: { enable: ['PodTolerationRestriction'], configFile: config } })
    // An empty default list stands instead of the configured defaults, which this whitelist would not cover.
    await namespace(app, 'blue', { [SCHEDULER_ANNOTATIONS.defaultTolerations]: '', [SCHEDULER_ANNOTATIONS.tolerationsWhitelist]: whitelist })
    const outside = await pod(app, 'blue', 'gpu', { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] })
    assert.equal(outside.statusCode, 403, outside.body)
    assert.equal(outside.json().message, 'pods "gpu" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist')
    const covered = await pod(app, 'blue', 'team', { tolerations: [{ key: 'team', operator: 'Equal', value: 'red', effect: 'NoSchedule' }] })
    assert.equal(covered.statusCode, 201, covered.body)
    const cluster = await pod(app, 'default', 'gpu', { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }] })
    assert.equal(cluster.statusCode, 403, cluster.body)
    assert.equal(cluster.json().message, 'pods "gpu" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist')
    await namespace(app, 'broken', { [SCHEDULER_ANNOTATIONS.defaultTolerations]: '{not json' })
    const broken = await pod(app, 'broken', 'b')
    assert.equal(broken.statusCode, 403, broken.body)
    assert.match(broken.json().message, /scheduler\.alpha\.svc\.io\/defaultTolerations/)
  })

  it('stops start-up on invalid configured tolerations', async (t) => {
    const bad = configFile([{ name: 'PodTolerationRestriction', configuration: { kind: 'Configuration', whitelist: [{ operator: 'Equal', value: 'x' }] } }])
    await assert.rejects(buildTestApp(t, { admission: { enable: ['PodTolerationRestriction'], configFile: bad } }), /PodTolerationRestriction: whitelist\[0\]\.operator/)
  })
})

describe('SecurityContextDeny', () => {
  it('refuses pods that set the guarded security context fields, in the reference server\'s words', async (t) => {
    const app = await buildTestApp(t, { admission: { enable: ['SecurityContextDeny'] } })
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ securityContext: { supplementalGroups: [1000] } }, 'pod.Spec.SecurityContext.SupplementalGroups is forbidden'],
      [{ securityContext: { seLinuxOptions: { level: 's0:c1' } } }, 'pod.Spec.SecurityContext.SELinuxOptions is forbidden'],
      [{ securityContext: { runAsUser: 1000 } }, 'pod.Spec.SecurityContext.RunAsUser is forbidden'],
      [{ securityContext: { fsGroup: 2000 } }, 'pod.Spec.SecurityContext.FSGroup is forbidden'],
      [{ initContainers: [{ ...container, name: 'i', securityContext: { runAsUser: 0 } }] }, 'SecurityContext.RunAsUser is forbidden'],
      [{ containers: [{ ...container, securityContext: { seLinuxOptions: { type: 'spc_t' } } }] }, 'SecurityContext.SELinuxOptions is forbidden']
    ]
    for (const [i, [spec, why]] of cases.entries()) {
      const res = await pod(app, 'default', `p${i}`, spec)
      assert.equal(res.statusCode, 403, res.body)
      assert.equal(res.json().message, `pods "p${i}" is forbidden: ${why}`)
    }
    const allowed = await pod(app, 'default', 'ok', { securityContext: { runAsNonRoot: true, runAsGroup: 3000 }, containers: [{ ...container, securityContext: { readOnlyRootFilesystem: true } }] })
    assert.equal(allowed.statusCode, 201, allowed.body)
  })

  it('is off by default', async (t) => {
    const app = await buildTestApp(t)
    assert.equal((await pod(app, 'default', 'p', { securityContext: { runAsUser: 1000 } })).statusCode, 201)
  })
})
