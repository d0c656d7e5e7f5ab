// The workload kinds as a new user drives them with kubectl 1.27 and 1.33: `create deployment`,
// `create job`, `create cronjob`, `autoscale`, `scale`, `set image`, `rollout restart|pause|resume`,
// `get all`, `edit`, and a multi-document manifest (Deployment, StatefulSet, DaemonSet, CronJob,
// HPA) applied client-side, then server-side, then again with a changed image.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startServer, type RunningServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor, type Kubectl } from '../helpers/kubectl.js'

/** The rows of kubectl's table output, each split into its cells (two or more spaces apart). */
const rows = (out: string): string[][] => out.trim().split('\n').map(l => l.trim().split(/\s{2,}/))

function tableRow (out: string, name: string): { header: string[], row: string[] } {
  const lines = rows(out)
  const row = lines.find(l => l[0] === name || l[0]?.endsWith(`/${name}`))
  assert.ok(row, `no row for ${name} in\n${out}`)
  return { header: lines[0]!, row }
}

const manifest = (image: string): string => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
  labels: { app: frontend }
spec:
  replicas: 2
  selector:
    matchLabels: { app: frontend }
  template:
    metadata:
      labels: { app: frontend }
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 80
      - name: sidecar
        image: busybox:1.36
        command: ["sleep", "infinity"]
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 1
  selector:
    matchLabels: { app: db }
  template:
    metadata:
      labels: { app: db }
    spec:
      containers:
      - name: postgres
        image: ${image}
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 1Gi
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: { app: agent }
  template:
    metadata:
      labels: { app: agent }
    spec:
      containers:
      - name: agent
        image: ${image}
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: report
            image: ${image}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: frontend
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: frontend
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 70
`

for (const version of ['1.27', '1.33']) {
  describe(`kubectl ${version} with workloads`, { concurrency: 1, skip: hasKubectl(version) ? false : `no kubectl ${version} installed` }, () => {
    let server: RunningServer
    let kubectl: Kubectl
    const cleanups: Array<() => unknown> = []
    before(async () => {
      server = await startServer({ after: fn => { cleanups.push(fn) } })
      // `kubectl edit` runs this editor on the object's YAML: it raises the history limit.
      const editor = join(server.dataDir, 'editor.sh')
      writeFileSync(editor, '#!/bin/sh\nsed -i "s/revisionHistoryLimit: 10/revisionHistoryLimit: 4/" "$1"\n')
      chmodSync(editor, 0o755)
      kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version, home: join(server.dataDir, 'home'), env: { KUBE_EDITOR: editor } })
    })
    after(async () => { for (const fn of cleanups.reverse()) await fn() })

    const json = async (...args: string[]): Promise<any> => JSON.parse(await kubectl.ok(['get', ...args, '-o', 'json']))

    it('creates a deployment with its defaults and shows its columns', async () => {
      assert.equal(await kubectl.ok(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']), 'deployment.apps/web created\n')
      const d = await json('deploy', 'web')
      assert.equal(d.apiVersion, 'apps/v1')
      assert.deepEqual(d.spec.selector, { matchLabels: { app: 'web' } })
      assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } })
      assert.equal(d.spec.revisionHistoryLimit, 10)
      assert.equal(d.spec.progressDeadlineSeconds, 600)
      assert.equal(d.spec.template.spec.restartPolicy, 'Always')
      assert.equal(d.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent')
      assert.equal(d.metadata.generation, 1)
      const { header, row } = tableRow(await kubectl.ok(['get', 'deployments']), 'web')
      assert.deepEqual(header, ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'])
      assert.deepEqual(row.slice(0, 4), ['web', '0/2', '0', '0'])
      const wide = tableRow(await kubectl.ok(['get', 'deploy', 'web', '-o', 'wide']), 'web')
      assert.deepEqual(wide.header, ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'])
      assert.deepEqual(wide.row.slice(5), ['nginx', 'nginx:1.27', 'app=web'])
    })

    it('scales through the scale subresource', async () => {
      assert.equal(await kubectl.ok(['scale', 'deployment', 'web', '--replicas=3']), 'deployment.apps/web scaled\n')
      const d = await json('deploy', 'web')
      assert.equal(d.spec.replicas, 3)
      assert.equal(d.metadata.generation, 2)
      // A precondition on the current size, as kubectl checks it.
      const refused = await kubectl.run(['scale', 'deployment', 'web', '--current-replicas=5', '--replicas=1'])
      assert.notEqual(refused.code, 0)
      assert.match(refused.stderr, /Expected replicas to be 5, was 3/)
    })

    it('sets the image, restarts, pauses and resumes the rollout', async () => {
      assert.equal(await kubectl.ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.28']), 'deployment.apps/web image updated\n')
      assert.equal((await json('deploy', 'web')).spec.template.spec.containers[0].image, 'nginx:1.28')
      assert.equal(await kubectl.ok(['rollout', 'restart', 'deployment/web']), 'deployment.apps/web restarted\n')
      const restarted = await json('deploy', 'web')
      assert.match(restarted.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'], /^\d{4}-\d\d-\d\dT/)
      assert.equal(await kubectl.ok(['rollout', 'pause', 'deployment/web']), 'deployment.apps/web paused\n')
      assert.equal((await json('deploy', 'web')).spec.paused, true)
      assert.equal(await kubectl.ok(['rollout', 'resume', 'deployment/web']), 'deployment.apps/web resumed\n')
      assert.equal((await json('deploy', 'web')).spec.paused, undefined)
    })

    it('autoscales the deployment', async () => {
      assert.equal(await kubectl.ok(['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=80']), 'horizontalpodautoscaler.autoscaling/web autoscaled\n')
      const { header, row } = tableRow(await kubectl.ok(['get', 'hpa']), 'web')
      assert.deepEqual(header, ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE'])
      assert.deepEqual([row[0], row[1], row[3], row[4], row[5]], ['web', 'Deployment/web', '2', '5', '0'])
      assert.match(row[2]!, /<unknown>\/80%/)
      const v2 = await json('hpa.v2.autoscaling', 'web')
      assert.deepEqual(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }])
    })

    it('creates a job and a cronjob with their defaults', async () => {
      assert.equal(await kubectl.ok(['create', 'job', 'pi', '--image=perl:5.34', '--', 'perl', '-e', 'print 1']), 'job.batch/pi created\n')
      const job = await json('job', 'pi')
      assert.equal(job.spec.completions, 1)
      assert.equal(job.spec.parallelism, 1)
      assert.equal(job.spec.backoffLimit, 6)
      assert.equal(job.spec.completionMode, 'NonIndexed')
      assert.equal(job.spec.template.metadata.labels['batch.kubernetes.io/job-name'], 'pi')
      assert.equal(job.spec.selector.matchLabels['batch.kubernetes.io/controller-uid'], job.metadata.uid)
      const jobs = tableRow(await kubectl.ok(['get', 'jobs']), 'pi')
      assert.equal(jobs.row[0], 'pi')
      assert.ok(jobs.header.includes('COMPLETIONS'), jobs.header.join(' '))

      assert.equal(await kubectl.ok(['create', 'cronjob', 'hello', '--image=busybox:1.36', '--schedule=*/5 * * * *', '--', 'date']), 'cronjob.batch/hello created\n')
      const cj = await json('cj', 'hello')
      assert.equal(cj.spec.concurrencyPolicy, 'Allow')
      assert.equal(cj.spec.successfulJobsHistoryLimit, 3)
      assert.equal(cj.spec.failedJobsHistoryLimit, 1)
      assert.equal(cj.spec.suspend, false)
      const cronjobs = tableRow(await kubectl.ok(['get', 'cronjobs']), 'hello')
      assert.equal(cronjobs.row[1], '*/5 * * * *')

      const bad = await kubectl.run(['create', 'cronjob', 'bad', '--image=busybox', '--schedule=TZ=UTC 0 * * * *'])
      assert.notEqual(bad.code, 0)
      assert.match(bad.stderr, /cannot use TZ or CRON_TZ in schedule, use timeZone field instead/)
    })

    it('lists them all under `get all`', async () => {
      const out = await kubectl.ok(['get', 'all'])
      for (const name of ['deployment.apps/web', 'horizontalpodautoscaler.autoscaling/web', 'job.batch/pi', 'cronjob.batch/hello', 'service/kubernetes']) {
        assert.match(out, new RegExp(`^${name.replace(/\./g, '\\.')}\\s`, 'm'), out)
      }
    })

    it('applies a manifest client-side, then server-side, then with a changed image', async () => {
      const file = join(server.dataDir, 'app.yaml')
      writeFileSync(file, manifest('registry.example/app:1'))
      const created = await kubectl.ok(['apply', '-f', file])
      for (const line of ['deployment.apps/frontend created', 'statefulset.apps/db created', 'daemonset.apps/agent created', 'cronjob.batch/report created', 'horizontalpodautoscaler.autoscaling/frontend created']) {
        assert.ok(created.includes(line), created)
      }
      assert.match(await kubectl.ok(['apply', '-f', file]), /deployment\.apps\/frontend unchanged/)
      writeFileSync(file, manifest('registry.example/app:2'))
      assert.match(await kubectl.ok(['apply', '-f', file]), /deployment\.apps\/frontend configured/)
      const d = await json('deploy', 'frontend')
      // The containers list merges by name: the sidecar stays, the web container has the new image.
      assert.deepEqual(d.spec.template.spec.containers.map((c: any) => [c.name, c.image]), [['web', 'registry.example/app:2'], ['sidecar', 'busybox:1.36']])
      assert.equal(d.metadata.generation, 2)

      // Server-side apply takes the objects over from the client-side apply's manager.
      writeFileSync(file, manifest('registry.example/app:3'))
      const ssa = await kubectl.ok(['apply', '--server-side', '--force-conflicts', '-f', file])
      assert.match(ssa, /statefulset\.apps\/db serverside-applied/)
      const sts = await json('sts', 'db')
      assert.deepEqual(sts.spec.template.spec.containers.map((c: any) => c.image), ['registry.example/app:3'])
      assert.equal(sts.spec.podManagementPolicy, 'OrderedReady')
      assert.equal(sts.spec.volumeClaimTemplates[0].metadata.name, 'data')
      const ds = await json('ds', 'agent')
      assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } })
      assert.equal((await json('cj', 'report')).spec.jobTemplate.spec.template.spec.containers[0].image, 'registry.example/app:3')

      writeFileSync(file, manifest('registry.example/app:4'))
      await kubectl.ok(['apply', '--server-side', '-f', file])
      const after = await json('deploy', 'frontend')
      assert.deepEqual(after.spec.template.spec.containers.map((c: any) => [c.name, c.image]), [['web', 'registry.example/app:4'], ['sidecar', 'busybox:1.36']])
      for (const kind of ['statefulsets', 'daemonsets']) {
        const { header } = tableRow(await kubectl.ok(['get', kind]), kind === 'statefulsets' ? 'db' : 'agent')
        assert.deepEqual(header, kind === 'statefulsets' ? ['NAME', 'READY', 'AGE'] : ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE'])
      }
    })

    it('edits a deployment and refuses to change its selector', async () => {
      assert.equal(await kubectl.ok(['edit', 'deployment', 'web']), 'deployment.apps/web edited\n')
      assert.equal((await json('deploy', 'web')).spec.revisionHistoryLimit, 4)
      const refused = await kubectl.run(['patch', 'deployment', 'web', '-p', '{"spec":{"selector":{"matchLabels":{"app":"other"}}}}'])
      assert.notEqual(refused.code, 0)
      assert.match(refused.stderr, /spec\.selector: Invalid value: .*field is immutable/)
    })
  })
}
