// The Python client (python3-kubernetes) with the workload kinds: AppsV1Api, BatchV1Api and the
// autoscaling APIs, as python-workloads.py prints them step by step.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startTestServer } from '../helpers/tls-app.js'

const PYTHON = '/usr/bin/python3'
const hasClient = spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0

test('python client: deployments, their scale, jobs, cronjobs and autoscalers', { skip: hasClient ? false : 'python3-kubernetes is not installed' }, async (t) => {
  const server = await startTestServer(t)
  const script = fileURLToPath(new URL('./python-workloads.py', import.meta.url))
  const { stdout } = await promisify(execFile)(PYTHON, [script, server.kubeconfig], { timeout: 90_000, env: { ...process.env, TMPDIR: server.dir } })
  const steps = Object.fromEntries(stdout.trim().split('\n').map(l => JSON.parse(l)).map(({ step, ...rest }) => [step, rest]))
  assert.deepEqual(steps, {
    'deployment created': { replicas: 1, strategy: 'RollingUpdate', maxSurge: '25%', revisionHistoryLimit: 10, generation: 1 },
    'scale read': { kind: 'Scale', replicas: 1, selector: 'app=py-web' },
    'scale replaced': { replicas: 4, deployment: 4 },
    'scale patched': { replicas: 2 },
    'image patched': { images: ['nginx:1.28'], generation: 4 },
    'mismatch refused': {
      status: 422,
      reason: 'Invalid',
      message: 'Deployment.apps "mismatch" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`'
    },
    listed: { kind: 'DeploymentList', names: ['py-web'] },
    'owned collected': { gone: true },
    'job created': { completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', selected: true },
    'cronjob created': { concurrencyPolicy: 'Allow', successful: 3, failed: 1, suspend: false },
    'hpa v1 created': { minReplicas: 1, target: 60 },
    'hpa v2 read': { apiVersion: 'autoscaling/v2', metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }], maxReplicas: 5 }
  })
})
