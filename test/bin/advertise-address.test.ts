// A server bound to every interface writes a kubeconfig clients can use: the address it
// advertises (never 0.0.0.0), in the serving certificate too, so kubectl verifies it.
import assert from 'node:assert/strict'
import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { parseFlags } from '../../bin/flags.js'
import { startServer } from '../helpers/server.js'
import { kubectlFor } from '../helpers/kubectl.js'

test('--advertise-address takes an IP clients can reach, never a wildcard', () => {
  assert.equal(parseFlags(['--advertise-address', '10.0.0.5'], {}).advertiseAddress, '10.0.0.5')
  assert.equal(parseFlags(['--external-hostname', 'api.example.test'], {}).externalHostname, 'api.example.test')
  assert.throws(() => parseFlags(['--advertise-address', '0.0.0.0'], {}), /invalid --advertise-address "0.0.0.0"/)
  assert.throws(() => parseFlags(['--advertise-address', 'api.example.test'], {}), /invalid --advertise-address/)
})

test('bound to 0.0.0.0, the kubeconfig names the external host name, and kubectl verifies the certificate at the advertised address', async (t) => {
  const server = await startServer(t, ['--bind-address', '0.0.0.0', '--advertise-address', '127.0.0.2', '--external-hostname', 'api.example.test'])
  // The external host name is what clients are told to use; it is in the certificate.
  assert.match(server.server, /^https:\/\/api\.example\.test:\d+$/)
  const serving = new X509Certificate(readFileSync(join(server.dataDir, 'pki', 'apiserver.crt')))
  assert.equal(serving.checkIP('127.0.0.2'), '127.0.0.2')
  assert.equal(serving.checkHost('api.example.test'), 'api.example.test')
  // The advertised address answers, and kubectl verifies the certificate for it.
  const port = new URL(server.server).port
  const stdout = await kubectlFor({ kubeconfig: server.kubeconfig }).ok(['--server', `https://127.0.0.2:${port}`, 'get', 'namespace', 'default', '-o', 'name'])
  assert.equal(stdout.trim(), 'namespace/default')
})
