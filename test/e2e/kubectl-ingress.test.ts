// kubectl's ingress commands end to end: IngressClass manifests in both group spellings
// applied, `kubectl create ingress` (a typed client of the upstream group, protobuf bodies) with
// rules, TLS and the default class, `kubectl get ingress` and `kubectl get ingressclass` columns,
// and an invalid path refused with its field path.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { startServer } from '../helpers/server.js'
import { kubectlFor } from '../helpers/kubectl.js'

/** The column titles of kubectl's header line (columns are at least two spaces apart). */
const header = (out: string): string[] => out.split('\n')[0]!.trim().split(/\s{2,}/)

test('kubectl creates ingress classes and ingresses and shows their columns', async (t) => {
  const server = await startServer(t)
  const kubectl = (...args: string[]) => kubectlFor({ kubeconfig: server.kubeconfig, home: server.dataDir }).attempt(args)

  const manifest = join(server.dataDir, 'classes.yaml')
  writeFileSync(manifest, [
    'apiVersion: networking.svc.io/v1',
    'kind: IngressClass',
    'metadata:',
    '  name: nginx',
    '  annotations:',
    '    ingressclass.svc.io/is-default-class: "true"',
    'spec:',
    '  controller: example.com/ingress-nginx',
    '---',
    'apiVersion: networking.k8s.io/v1',
    'kind: IngressClass',
    'metadata:',
    '  name: external',
    'spec:',
    '  controller: example.com/external-lb',
    '  parameters:',
    '    apiGroup: lb.example.com',
    '    kind: LoadBalancerParameters',
    '    name: shared',
    ''
  ].join('\n'))
  const applied = await kubectl('apply', '-f', manifest)
  assert.ok(applied.ok, applied.out)
  assert.match(applied.out, /ingressclass\.networking\.(svc|k8s)\.io\/nginx created/)

  const classes = await kubectl('get', 'ingressclass')
  assert.ok(classes.ok, classes.out)
  assert.deepEqual(header(classes.out), ['NAME', 'CONTROLLER', 'PARAMETERS', 'AGE'])
  assert.match(classes.out, /^external\s+example\.com\/external-lb\s+LoadBalancerParameters\.lb\.example\.com\/shared\s+\d+s$/m)
  assert.match(classes.out, /^nginx\s+example\.com\/ingress-nginx\s+<none>\s+\d+s$/m)

  const simple = await kubectl('create', 'ingress', 'simple', '--rule=foo.example.com/bar=svc1:8080,tls=my-cert')
  assert.ok(simple.ok, simple.out)
  assert.match(simple.out, /ingress\.networking\.k8s\.io\/simple created/)
  const catchAll = await kubectl('create', 'ingress', 'catch-all', '--class=external', '--rule=/path=svc:http', '--default-backend=default-svc:80')
  assert.ok(catchAll.ok, catchAll.out)

  const got = await kubectl('get', 'ingress')
  assert.ok(got.ok, got.out)
  assert.deepEqual(header(got.out), ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE'])
  // The default class went to the ingress created without one.
  assert.match(got.out, /^simple\s+nginx\s+foo\.example\.com\s+80, 443\s+\d+s$/m)
  assert.match(got.out, /^catch-all\s+external\s+\*\s+80\s+\d+s$/m)

  const path = await kubectl('get', 'ing', 'simple', '-o', 'jsonpath={.spec.rules[0].http.paths[0].pathType} {.spec.rules[0].http.paths[0].backend.service.port.number} {.spec.tls[0].secretName}')
  assert.equal(path.out, 'Exact 8080 my-cert')
  const named = await kubectl('get', 'ing', 'catch-all', '-o', 'jsonpath={.spec.rules[0].http.paths[0].backend.service.port.name} {.spec.defaultBackend.service.name}')
  assert.equal(named.out, 'http default-svc')

  const prefix = await kubectl('create', 'ingress', 'shop', '--class=nginx', '--rule=shop.example.com/*=web:80,tls=shop-tls')
  assert.ok(prefix.ok, prefix.out)
  const prefixPath = await kubectl('get', 'ing', 'shop', '-o', 'jsonpath={.spec.rules[0].http.paths[0].path} {.spec.rules[0].http.paths[0].pathType}')
  assert.equal(prefixPath.out, '/ Prefix')

  const bad = await kubectl('create', 'ingress', 'bad', '--rule=foo.example.com/a//b=svc1:8080')
  assert.ok(!bad.ok)
  assert.match(bad.out, /spec\.rules\[0\]\.http\.paths\[0\]\.path: Invalid value: "\/a\/\/b": must not contain '\/\/'/)
})
