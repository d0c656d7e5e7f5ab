// The networking and cluster kinds as a user meets them with kubectl 1.27 and 1.33: endpoint
// slices following a Service's ready pods, a NetworkPolicy and a FlowSchema created from files,
// the bootstrap flow-control objects listed, and a node that never reported described with its
// conditions Unknown and its unreachable taints.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { startServer, type RunningServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor, type Kubectl } from '../helpers/kubectl.js'
import { eventually } from '../helpers/eventually.js'

const VERSIONS = ['1.27', '1.33'].filter(v => hasKubectl(v))

const podManifest = (ns: string, name: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${ns}, labels: {app: web}}\nspec: {nodeName: node-a, containers: [{name: web, image: nginx, ports: [{containerPort: 8080, name: http}]}]}\n`

const serviceManifest = (ns: string): string =>
  `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: ${ns}}\nspec: {selector: {app: web}, ports: [{name: http, port: 80, targetPort: http}]}\n`

const networkPolicy = (ns: string): string => `apiVersion: networking.svc.io/v1
kind: NetworkPolicy
metadata: {name: web-ingress, namespace: ${ns}}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from:
    - ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}
    - namespaceSelector: {matchLabels: {team: a}}
    ports: [{protocol: TCP, port: 8000, endPort: 8080}]
`

const flowSchema = (name: string): string => `apiVersion: flowcontrol.apiserver.svc.io/v1
kind: FlowSchema
metadata: {name: ${name}}
spec:
  priorityLevelConfiguration: {name: workload-low}
  matchingPrecedence: 5000
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: User, user: {name: batch-bot}}]
    resourceRules: [{verbs: [list], apiGroups: ['*'], resources: ['*'], namespaces: ['*']}]
`

describe('kubectl with endpoints, network policies, flow control and node conditions', { skip: VERSIONS.length === 0 ? 'no kubectl 1.27 or 1.33 installed' : false }, () => {
  let server: RunningServer
  const clients = new Map<string, Kubectl>()
  const cleanups: Array<() => unknown> = []
  after(async () => { for (const fn of cleanups.reverse()) await fn() })
  before(async () => {
    server = await startServer({ after: fn => { cleanups.push(fn) } }, ['--node-monitor-period=1s', '--node-monitor-grace-period=3s', '--node-startup-grace-period=3s'])
    for (const version of VERSIONS) clients.set(version, kubectlFor({ kubeconfig: server.kubeconfig, version, home: join(server.dataDir, `home-${version}`), timeoutMs: 60_000 }))
  })

  for (const version of VERSIONS) {
    const kubectl = (): Kubectl => clients.get(version)!
    const ns = `net-${version.replace('.', '-')}`

    it(`kubectl ${version}: endpoint slices follow the Service's ready pods`, async () => {
      await kubectl().ok(['create', 'namespace', ns])
      await kubectl().ok(['apply', '-f', '-'], [serviceManifest(ns), podManifest(ns, 'web-1'), podManifest(ns, 'web-2')].join('---\n'))
      for (const [pod, ip] of [['web-1', '10.244.0.11'], ['web-2', '10.244.0.12']]) {
        await kubectl().ok(['-n', ns, 'patch', 'pod', pod, '--subresource=status', '--type=merge', '-p',
          JSON.stringify({ status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: pod === 'web-1' ? 'True' : 'False' }] } })])
      }
      await eventually(async () => {
        const slices = JSON.parse(await kubectl().ok(['-n', ns, 'get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json']))
        assert.equal(slices.items.length, 1)
        const endpoints = slices.items[0].endpoints.map((e: any) => `${String(e.addresses[0])}=${String(e.conditions.ready)}`).sort()
        assert.deepEqual(endpoints, ['10.244.0.11=true', '10.244.0.12=false'])
        assert.deepEqual(slices.items[0].ports, [{ name: 'http', port: 8080, protocol: 'TCP' }])
      })
      const table = await kubectl().ok(['-n', ns, 'get', 'endpointslices'])
      assert.match(table, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE/)
      assert.match(table, /web-\w+\s+IPv4\s+8080\s+10\.244\.0\.11,10\.244\.0\.12/)
      const endpoints = await kubectl().run(['-n', ns, 'get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].addresses[0].ip} {.subsets[0].notReadyAddresses[0].ip}'])
      assert.equal(endpoints.code, 0, endpoints.stderr)
      assert.equal(endpoints.stdout, '10.244.0.11 10.244.0.12')
    })

    it(`kubectl ${version}: a NetworkPolicy from a file, its invalid twin refused`, async () => {
      assert.equal(await kubectl().ok(['create', '-f', '-'], networkPolicy(ns)), 'networkpolicy.networking.svc.io/web-ingress created\n')
      const table = await kubectl().ok(['-n', ns, 'get', 'netpol'])
      assert.match(table, /web-ingress\s+app=web\s+\d+s/)
      const invalid = await kubectl().run(['create', '-f', '-'], networkPolicy(ns).replace('web-ingress', 'bad').replace('10.0.0.0/8', '10.0.0.0/33'))
      assert.notEqual(invalid.code, 0)
      assert.match(invalid.stderr, /The NetworkPolicy "bad" is invalid: spec\.ingress\[0\]\.from\[0\]\.ipBlock\.cidr: Invalid value: "10\.0\.0\.0\/33": must be a valid CIDR value/)
    })

    it(`kubectl ${version}: a FlowSchema from a file, beside the bootstrap objects`, async () => {
      const name = `batch-${version.replace('.', '-')}`
      assert.equal(await kubectl().ok(['create', '-f', '-'], flowSchema(name)), `flowschema.flowcontrol.apiserver.svc.io/${name} created\n`)
      const schemas = await kubectl().ok(['get', 'flowschemas'])
      assert.match(schemas, /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL/)
      for (const bootstrap of ['exempt', 'catch-all', 'system-leader-election', 'service-accounts', 'global-default']) assert.match(schemas, new RegExp(`^${bootstrap}\\s`, 'm'))
      assert.match(schemas, new RegExp(`^${name}\\s+workload-low\\s+5000\\s+ByUser\\s`, 'm'))
      const levels = await kubectl().ok(['get', 'prioritylevelconfigurations'])
      for (const level of ['exempt', 'catch-all', 'system', 'leader-election', 'workload-high', 'workload-low', 'global-default']) assert.match(levels, new RegExp(`^${level}\\s`, 'm'))
    })

    it(`kubectl ${version}: describe shows a silent node's Unknown conditions and unreachable taints`, async () => {
      const node = `silent-${version.replace('.', '-')}`
      await kubectl().ok(['apply', '-f', '-'], `apiVersion: v1\nkind: Node\nmetadata: {name: ${node}}\nstatus: {conditions: [{type: Ready, status: "True", reason: KubeletReady, message: ready}]}\n`)
      await eventually(async () => {
        const described = await kubectl().ok(['describe', 'node', node])
        assert.match(described, /Ready\s+Unknown\s+.*NodeStatusUnknown\s+Kubelet stopped posting node status\./)
        assert.match(described, /Taints:\s+node\.svc\.io\/unreachable:NoExecute/)
      }, 30_000)
    })
  }
})
