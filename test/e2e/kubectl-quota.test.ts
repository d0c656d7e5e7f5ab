// kubectl against a real server process: `kubectl create quota` and `kubectl describe quota`
// show the usage the controller counts, a create past the quota is refused with the reference
// message, and a LimitRange applied from a manifest gives a pod created from a manifest its
// default requests and limits (which is also what lets the pod past the quota's cpu rule).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'
import { kubectlFor } from '../helpers/kubectl.js'
import { ROOT_CA_CONFIGMAP } from '../../resources/naming.js'

const MANIFEST = `apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: team
spec:
  limits:
  - type: Container
    default:
      cpu: 200m
      memory: 128Mi
    defaultRequest:
      cpu: 100m
      memory: 64Mi
    max:
      memory: 1Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: team
spec:
  containers:
  - name: web
    image: nginx:1.27
`

test('kubectl: quotas created and described, a LimitRange defaulting a pod from a manifest', async (t) => {
  const server = await startServer(t)
  const dir = mkdtempSync(join(tmpdir(), 'quota-e2e-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const kubectl = (...args: string[]) => kubectlFor({ kubeconfig: server.kubeconfig, home: dir }).attempt(args)

  assert.ok((await kubectl('create', 'namespace', 'team')).ok)
  // The namespace's root CA ConfigMap is published first: the quota counts it from the start.
  await eventually(async () => assert.ok((await kubectl('get', 'configmap', ROOT_CA_CONFIGMAP, '-n', 'team')).ok), 20_000)
  const created = await kubectl('create', 'quota', 'team-quota', '-n', 'team', '--hard=count/configmaps=3,pods=3,requests.cpu=1,limits.memory=1Gi')
  assert.ok(created.ok, created.out)
  assert.match(created.out, /resourcequota\/team-quota created/)
  const described = await eventually(async () => {
    const d = await kubectl('describe', 'quota', 'team-quota', '-n', 'team')
    assert.match(d.out, /count\/configmaps\s+1\s+3/)
    return d.out
  }, 20_000)
  assert.match(described, /^Name:\s+team-quota$/m)
  assert.match(described, /^Resource\s+Used\s+Hard$/m)
  assert.match(described, /requests\.cpu\s+0\s+1/)

  for (const name of ['one', 'two']) assert.ok((await kubectl('create', 'configmap', name, '-n', 'team')).ok)
  const third = await kubectl('create', 'configmap', 'three', '-n', 'team')
  assert.equal(third.ok, false)
  assert.match(third.out, /configmaps "three" is forbidden: exceeded quota: team-quota, requested: count\/configmaps=1, used: count\/configmaps=3, limited: count\/configmaps=3/)

  const file = join(dir, 'manifest.yaml')
  writeFileSync(file, MANIFEST)
  const applied = await kubectl('apply', '-f', file)
  assert.ok(applied.ok, applied.out)
  assert.match(applied.out, /limitrange\/defaults created/)
  assert.match(applied.out, /pod\/web created/)
  const resources = JSON.parse((await kubectl('get', 'pod', 'web', '-n', 'team', '-o', 'jsonpath={.spec.containers[0].resources}')).out)
  assert.deepEqual(resources, { limits: { cpu: '200m', memory: '128Mi' }, requests: { cpu: '100m', memory: '64Mi' } })
  const limits = await kubectl('describe', 'limitrange', 'defaults', '-n', 'team')
  assert.match(limits.out, /Container\s+cpu\s+-\s+-\s+100m\s+200m\s+-/)

  const row = await eventually(async () => {
    const got = await kubectl('get', 'quota', '-n', 'team')
    assert.match(got.out, /requests\.cpu: 100m\/1/)
    return got.out
  })
  assert.match(row, /^NAME\s+AGE\s+REQUEST\s+LIMIT$/m)
  assert.match(row, /^team-quota\s+\S+\s+count\/configmaps: 3\/3, pods: 1\/3, requests\.cpu: 100m\/1\s+limits\.memory: 128Mi\/1Gi$/m)
})
