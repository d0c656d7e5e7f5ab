// --service-cluster-ip-range and --service-node-port-range: kubeadm's defaults, dual stack as two
// ranges of different families, malformed values refused at start naming the flag.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { parseFlags } from '../../bin/flags.js'
import { firstServiceIP } from '../../resources/services.js'

it('defaults to 10.96.0.0/12 and 30000-32767', () => {
  const f = parseFlags([], {})
  assert.deepEqual(f.serviceClusterIPRange, ['10.96.0.0/12'])
  assert.equal(f.serviceNodePortRange, '30000-32767')
  assert.equal(firstServiceIP({ clusterIPRanges: f.serviceClusterIPRange }), '10.96.0.1')
})

it('reads one range, two of different families, and a node port range', () => {
  assert.deepEqual(parseFlags(['--service-cluster-ip-range=10.0.0.0/16'], {}).serviceClusterIPRange, ['10.0.0.0/16'])
  const dual = parseFlags(['--service-cluster-ip-range', 'fd00:10::/108,10.0.0.0/16', '--service-node-port-range=20000-20999'], {})
  assert.deepEqual(dual.serviceClusterIPRange, ['fd00:10::/108', '10.0.0.0/16'])
  assert.equal(dual.serviceNodePortRange, '20000-20999')
  assert.equal(firstServiceIP({ clusterIPRanges: dual.serviceClusterIPRange }), 'fd00:10::1')
})

it('refuses malformed ranges by their flag', () => {
  assert.throws(() => parseFlags(['--service-cluster-ip-range=10.0.0.0'], {}), /--service-cluster-ip-range: "10.0.0.0" is not a CIDR/)
  assert.throws(() => parseFlags(['--service-cluster-ip-range=10.0.0.0/16,10.1.0.0/16'], {}), /different IP families/)
  assert.throws(() => parseFlags(['--service-cluster-ip-range=10.0.0.0/16,fd00::/108,fd01::/108'], {}), /want one CIDR, or two/)
  assert.throws(() => parseFlags(['--service-cluster-ip-range=10.0.0.0/32'], {}), /holds no address/)
  assert.throws(() => parseFlags(['--service-node-port-range=30000-'], {}), /--service-node-port-range: "30000-" is not a port range/)
})
