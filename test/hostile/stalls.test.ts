// Hostile inputs through the API, each beside a benign body of the same size in the same run:
// the longest event-loop stall while the server reads, validates and counts them (the quota
// controller re-canonicalises what a ResourceQuota holds) stays near the benign one's.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { suiteApp } from '../resources/suite.js'
import type { TestApp } from '../helpers/app.js'

const CSRS = '/apis/certificates.svc.io/v1/certificatesigningrequests'
const QUOTAS = '/api/v1/namespaces/default/resourcequotas'
const CLIENT = 'svc.io/svc-apiserver-client'
const b64 = (s: string): string => Buffer.from(s).toString('base64')
let serial = 0

/** The longest stall of this process's event loop, in ms, while `send` runs and a settling spell after it. */
async function longestStall (send: () => Promise<unknown>, settleMs = 300): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 5 })
  h.enable()
  // The histogram times from its first tick: a stall before it would go unseen.
  await new Promise(resolve => setTimeout(resolve, 25))
  await send()
  await new Promise(resolve => setTimeout(resolve, settleMs))
  h.disable()
  return h.max / 1e6
}

interface Pair { what: string, hostile: (app: TestApp) => Promise<unknown>, benign: (app: TestApp) => Promise<unknown> }

const csr = (request: string) => (app: TestApp) => app.request({
  method: 'POST', url: CSRS, payload: { metadata: { name: `h-${++serial}` }, spec: { request: b64(request), signerName: CLIENT, usages: ['client auth'] } }
})
const quota = (hard: Record<string, string>, annotation = '') => (app: TestApp) => app.request({
  method: 'POST', url: QUOTAS, payload: { metadata: { name: `q-${++serial}`, annotations: { note: annotation } }, spec: { hard } }
})

const PAIRS: Pair[] = [
  { what: 'a CSR of 900 KB of unterminated PEM headers', hostile: csr('-----BEGIN '.repeat(80_000)), benign: csr('A'.repeat(880_000)) },
  { what: 'a CSR of 900 KB of BEGIN lines', hostile: csr('-----BEGIN CERTIFICATE REQUEST-----\n'.repeat(25_000)), benign: csr('A'.repeat(900_000)) },
  { what: 'a ResourceQuota with a 100,000-digit quantity', hostile: quota({ 'requests.cpu': '1' + '0'.repeat(100_000) }), benign: quota({ 'requests.cpu': '1' }, 'x'.repeat(100_000)) },
  { what: 'a ResourceQuota with a 100,000-digit binary fraction', hostile: quota({ 'requests.memory': '1.' + '0'.repeat(100_000) + '1Ei' }), benign: quota({ 'requests.memory': '1Ei' }, 'x'.repeat(100_000)) }
]

describe('hostile inputs do not stall the server', () => {
  const app = suiteApp()
  for (const p of PAIRS) {
    it(p.what, async () => {
      let hostile = Infinity
      let benign = Infinity
      // Interleaved minima: a busy spell of the machine weighs on both.
      for (let round = 0; round < 3; round++) {
        benign = Math.min(benign, await longestStall(() => p.benign(app())))
        hostile = Math.min(hostile, await longestStall(() => p.hostile(app())))
      }
      assert.ok(hostile <= 3 * benign + 50, `${p.what}: longest stall ${hostile.toFixed(1)} ms, ${benign.toFixed(1)} ms for a benign body of its size`)
    })
  }
})
