// kubectl and Services: `create service clusterip` and `create service nodeport`, a manifest as
// `kubectl expose` writes it applied twice, and `kubectl get svc` with addresses and ports.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'

const KUBECTL = '1.33'

/** A Service as `kubectl expose deployment web --port=80 --target-port=8080 --type=NodePort --dry-run=client -o yaml` writes it (without its `creationTimestamp: null`, which kubectl sends as a change every time). */
const EXPOSED = `apiVersion: v1
kind: Service
metadata:
  labels:
    app: web
  name: web
  namespace: default
spec:
  ports:
  - port: 80
    protocol: TCP
    targetPort: 8080
  selector:
    app: web
  type: NodePort
status:
  loadBalancer: {}
`

const header = (out: string): string[] => out.split('\n')[0]!.trim().split(/\s{2,}/)

test('kubectl creates services, applies an exposed one and lists them with addresses and ports', { skip: !hasKubectl(KUBECTL) }, async (t) => {
  const server = await startServer(t)
  const dir = server.dataDir
  const kubectl = (...args: string[]) => kubectlFor({ kubeconfig: server.kubeconfig, version: KUBECTL, home: dir }).attempt(args)

  const clusterIP = await kubectl('create', 'service', 'clusterip', 'my-svc', '--tcp=80:8080')
  assert.ok(clusterIP.ok, clusterIP.out)
  assert.match(clusterIP.out, /service\/my-svc created/)
  const nodePort = await kubectl('create', 'service', 'nodeport', 'my-np', '--tcp=443:8443', '--node-port=30043')
  assert.ok(nodePort.ok, nodePort.out)
  const headless = await kubectl('create', 'service', 'clusterip', 'my-headless', '--clusterip=None')
  assert.ok(headless.ok, headless.out)
  const external = await kubectl('create', 'service', 'externalname', 'my-ext', '--external-name=db.example.com')
  assert.ok(external.ok, external.out)

  const manifest = join(dir, 'web.yaml')
  writeFileSync(manifest, EXPOSED)
  const applied = await kubectl('apply', '-f', manifest)
  assert.ok(applied.ok, applied.out)
  const webPort = await kubectl('get', 'svc', 'web', '-o', 'jsonpath={.spec.ports[0].nodePort} {.spec.clusterIP}')
  // Applied again: the allocated address and node port stay (the manifest names neither).
  const again = await kubectl('apply', '-v=8', '-f', manifest)
  assert.ok(again.ok, again.out)
  assert.match(again.out, /service\/web unchanged/)
  assert.equal((await kubectl('get', 'svc', 'web', '-o', 'jsonpath={.spec.ports[0].nodePort} {.spec.clusterIP}')).out, webPort.out)

  const got = await kubectl('get', 'svc')
  assert.ok(got.ok, got.out)
  assert.deepEqual(header(got.out), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE'])
  const row = (name: string) => got.out.split('\n').find(l => l.startsWith(`${name} `))?.trim().split(/\s+/) ?? []
  assert.deepEqual(row('kubernetes').slice(0, 5), ['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP'])
  const svc = row('my-svc')
  assert.equal(svc[1], 'ClusterIP')
  assert.match(svc[2]!, /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/)
  assert.equal(svc[4], '80/TCP')
  assert.deepEqual(row('my-np').slice(1, 2), ['NodePort'])
  assert.equal(row('my-np')[4], '443:30043/TCP')
  assert.deepEqual(row('my-headless').slice(1, 5), ['ClusterIP', 'None', '<none>', '<none>'])
  assert.deepEqual(row('my-ext').slice(1, 5), ['ExternalName', '<none>', 'db.example.com', '<none>'])
  assert.match(row('web')[4]!, /^80:3\d{4}\/TCP$/)

  const wide = await kubectl('get', 'svc', 'web', '-o', 'wide')
  assert.deepEqual(header(wide.out), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR'])
  assert.match(wide.out, /app=web/)

  const clash = await kubectl('create', 'service', 'nodeport', 'my-np2', '--tcp=443:8443', '--node-port=30043')
  assert.equal(clash.ok, false)
  assert.match(clash.out, /spec\.ports\[0\]\.nodePort: Invalid value: 30043: provided port is already allocated/)

  const byShortName = await kubectl('delete', 'svc', 'my-np')
  assert.ok(byShortName.ok, byShortName.out)
  const reused = await kubectl('create', 'service', 'nodeport', 'my-np2', '--tcp=443:8443', '--node-port=30043')
  assert.ok(reused.ok, reused.out)
})
