// Two server processes on one database, each advertising its own address: `kubectl get
// endpoints kubernetes` and its EndpointSlice name both; the one stopped with SIGTERM takes its
// address away as it shuts down.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { startServer } from '../helpers/server.js'
import { parseFlags } from '../../bin/flags.js'
import { createServer } from 'node:net'

/** A port free on loopback now. */
async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise(resolve => server.close(resolve))
  return port
}

const KUBECTL = '1.33'

test('--endpoint-reconciler-type takes the reference\'s lease and none', () => {
  assert.equal(parseFlags([], {}).endpointReconcilerType, 'lease')
  assert.equal(parseFlags(['--endpoint-reconciler-type', 'none'], {}).endpointReconcilerType, 'none')
  assert.throws(() => parseFlags(['--endpoint-reconciler-type', 'master-count'], {}), /invalid --endpoint-reconciler-type "master-count": want lease or none/)
})

test('the kubernetes Service names each replica while it runs', { skip: hasKubectl(KUBECTL) ? false : `kubectl ${KUBECTL} is not installed` }, async (t) => {
  // Endpoints may not name loopback addresses: each advertises a documentation address and is
  // reached on a loopback address of its own, at the one port the replicas share (the endpoints
  // name one port for every address, so not the helper's port 0, a port of its own per replica).
  const port = String(await freePort())
  const replica = (loopback: string, advertised: string): string[] =>
    ['--secure-port', port, '--bind-address', loopback, '--external-hostname', loopback, '--advertise-address', advertised]
  const a = await startServer(t, replica('127.0.0.3', '192.0.2.3'))
  const b = await startServer(t, [...replica('127.0.0.2', '192.0.2.2'), '--storage-url', a.databaseUrl, '--cert-dir', join(a.dataDir, 'pki')])
  const kubectl = kubectlFor({ kubeconfig: a.kubeconfig, version: KUBECTL, home: join(a.dataDir, 'home') })
  const addresses = async (): Promise<{ endpoints: string, slice: string }> => ({
    endpoints: await kubectl.ok(['get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.subsets[*].addresses[*].ip} {.subsets[*].ports[*].port}']),
    slice: await kubectl.ok(['get', 'endpointslices', 'kubernetes', '-o', 'jsonpath={.endpoints[*].addresses[*]}'])
  })
  // B wrote both at its start, A's lease being live.
  assert.deepEqual(await addresses(), { endpoints: `192.0.2.2 192.0.2.3 ${port}`, slice: '192.0.2.2 192.0.2.3' })
  await b.stop()
  assert.deepEqual(await addresses(), { endpoints: `192.0.2.3 ${port}`, slice: '192.0.2.3' })
})
