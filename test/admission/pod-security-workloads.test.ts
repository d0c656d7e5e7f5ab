// PodSecurity on workload kinds: their pod templates are evaluated at the namespace's warn and
// audit levels and answered with the reference's warnings, never refused, even where enforce
// would refuse the pods they make; exempt namespaces and fully privileged ones are not looked at.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { suiteApp } from '../resources/suite.js'
import { POD_SECURITY } from '../../resources/naming.js'

type AnyObject = Record<string, any>

const label = (name: string): string => `${POD_SECURITY.labelPrefix}${name}`

function warnings (res: LightMyRequestResponse): string[] {
  const raw = res.headers.warning
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)]
  return values.map(v => JSON.parse(Buffer.from(v.slice('299 - '.length), 'latin1').toString('utf8')) as string)
}

const podTemplate = (privileged: boolean): AnyObject => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx', ...(privileged ? { securityContext: { privileged: true } } : {}) }] }
})

const WORKLOADS: Array<{ name: string, url: (ns: string) => string, body: (privileged: boolean) => AnyObject }> = [
  { name: 'Deployment', url: ns => `/apis/apps/v1/namespaces/${ns}/deployments`, body: p => ({ metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate(p) } }) },
  { name: 'StatefulSet', url: ns => `/apis/apps/v1/namespaces/${ns}/statefulsets`, body: p => ({ metadata: { name: 'web' }, spec: { serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: podTemplate(p) } }) },
  { name: 'DaemonSet', url: ns => `/apis/apps/v1/namespaces/${ns}/daemonsets`, body: p => ({ metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate(p) } }) },
  { name: 'Job', url: ns => `/apis/batch/v1/namespaces/${ns}/jobs`, body: p => ({ metadata: { name: 'web' }, spec: { template: { ...podTemplate(p), spec: { ...podTemplate(p).spec, restartPolicy: 'Never' } } } }) },
  { name: 'CronJob', url: ns => `/apis/batch/v1/namespaces/${ns}/cronjobs`, body: p => ({ metadata: { name: 'web' }, spec: { schedule: '@daily', jobTemplate: { spec: { template: { ...podTemplate(p), spec: { ...podTemplate(p).spec, restartPolicy: 'Never' } } } } } }) }
]

describe('PodSecurity on workload pod templates', () => {
  const app = suiteApp()
  const namespace = async (name: string, labels: Record<string, string>): Promise<void> => {
    const res = await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name, labels } } })
    assert.equal(res.statusCode, 201, res.body)
  }

  it('warns about a privileged template without refusing it, where enforce would refuse the pod', async () => {
    await namespace('baseline-enforced', { [label('enforce')]: 'baseline', [label('warn')]: 'baseline' })
    for (const w of WORKLOADS) {
      const res = await app().request({ method: 'POST', url: w.url('baseline-enforced'), payload: w.body(true) })
      assert.equal(res.statusCode, 201, `${w.name}: ${res.body}`)
      assert.deepEqual(warnings(res), ['would violate PodSecurity "baseline:latest": privileged (container "web" must not set securityContext.privileged=true)'], w.name)
    }
    // The pod itself is refused there.
    const pod = await app().request({ method: 'POST', url: '/api/v1/namespaces/baseline-enforced/pods', payload: { metadata: { name: 'p' }, spec: podTemplate(true).spec } })
    assert.equal(pod.statusCode, 403, pod.body)
  })

  it('says nothing of a template that meets the level, nor in a namespace that only audits', async () => {
    // Warn follows enforce when only enforce is set; audit alone warns of nothing.
    await namespace('audit-only', { [label('audit')]: 'baseline' })
    for (const w of WORKLOADS) {
      const ok = await app().request({ method: 'POST', url: w.url('baseline-enforced'), payload: { ...w.body(false), metadata: { name: 'fine' } } })
      assert.equal(ok.statusCode, 201, ok.body)
      assert.deepEqual(warnings(ok), [], w.name)
      const quiet = await app().request({ method: 'POST', url: w.url('audit-only'), payload: w.body(true) })
      assert.equal(quiet.statusCode, 201, quiet.body)
      assert.deepEqual(warnings(quiet), [], w.name)
    }
  })

  it('warns again on an update that changes the template, and not on a status write', async () => {
    const url = '/apis/apps/v1/namespaces/baseline-enforced/deployments/fine'
    const patched = await app().request({ method: 'PATCH', url, headers: { 'content-type': 'application/merge-patch+json' }, payload: { spec: { template: { spec: { hostNetwork: true } } } } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual(warnings(patched), ['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)'])
    const status = await app().request({ method: 'PATCH', url: `${url}/status`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { status: { replicas: 1 } } })
    assert.equal(status.statusCode, 200, status.body)
    assert.deepEqual(warnings(status), [])
  })
})
