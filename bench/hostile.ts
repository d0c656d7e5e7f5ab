// The hostile-input workload: the worst input known for each parser that reads client text,
// sent to the running server one request at a time while a probe on its own connection asks
// /readyz every 10 ms. The figure is the slowest /readyz answer while the hostile requests
// (and what the controllers do with their objects) run; the ceiling is the same for benign
// bodies of the same sizes, sent in the same run.
import { Pool } from 'undici'
import type { Target } from './load.js'

const CSRS = '/apis/certificates.svc.io/v1/certificatesigningrequests'
const CLIENT_SIGNER = 'svc.io/svc-apiserver-client'
/** Controllers act on a new object within this: its cost is counted too (the quota controller recounts). */
const SETTLE_MS = 1000
const PROBE_EVERY_MS = 10

interface Request { method: 'GET' | 'POST', path: string, body?: unknown }
interface Case { what: string, hostile: (id: string) => Request, benign: (id: string) => Request }

const b64 = (s: string): string => Buffer.from(s).toString('base64')
const csr = (request: string) => (id: string): Request => ({
  method: 'POST', path: CSRS, body: { metadata: { name: `hostile-${id}` }, spec: { request: b64(request), signerName: CLIENT_SIGNER, usages: ['client auth'] } }
})
const quota = (namespace: string, hard: Record<string, string>, note = '') => (id: string): Request => ({
  method: 'POST', path: `/api/v1/namespaces/${namespace}/resourcequotas`, body: { metadata: { name: `hostile-${id}`, annotations: { note } }, spec: { hard } }
})
const list = (namespace: string, query: string) => (): Request => ({ method: 'GET', path: `/api/v1/namespaces/${namespace}/configmaps?${query}` })
/**
 * A benign query as long as the hostile one: percent-encoding makes a hostile selector's URL two
 * or three times its text, and the row compares what parsing costs, not bytes on the wire.
 */
const asLongAs = (hostile: string, benign: string): string => `${benign}&pad=${'y'.repeat(Math.max(0, hostile.length - benign.length - 5))}`
const FIELD_SPACES = `fieldSelector=${encodeURIComponent(`metadata.name=x${' '.repeat(300_000)}y`)}`
const LABEL_REQUIREMENTS = `labelSelector=${encodeURIComponent('a=b,'.repeat(75_000) + 'a=b')}`

export function hostileCases (namespace: string): Case[] {
  return [
    { what: 'CSR, 900 KB of PEM BEGIN lines', hostile: csr('-----BEGIN CERTIFICATE REQUEST-----\n'.repeat(25_000)), benign: csr('A'.repeat(900_000)) },
    { what: 'CSR, 900 KB of unterminated BEGIN markers', hostile: csr('-----BEGIN '.repeat(80_000)), benign: csr('A'.repeat(880_000)) },
    { what: 'ResourceQuota, a 100,000-digit quantity', hostile: quota(namespace, { 'requests.cpu': '1' + '0'.repeat(100_000) }), benign: quota(namespace, { 'requests.cpu': '1' }, 'x'.repeat(100_000)) },
    { what: 'ResourceQuota, a 100,000-digit binary fraction', hostile: quota(namespace, { 'requests.memory': '1.' + '0'.repeat(100_000) + '1Ei' }), benign: quota(namespace, { 'requests.memory': '1Ei' }, 'x'.repeat(100_000)) },
    {
      what: 'list, a 300 KB field selector with spaces inside its value',
      hostile: list(namespace, FIELD_SPACES),
      benign: list(namespace, asLongAs(FIELD_SPACES, `fieldSelector=${encodeURIComponent(`metadata.name=x${'x'.repeat(300_000)}y`)}`))
    },
    {
      what: 'list, a 300 KB label selector of requirements',
      hostile: list(namespace, LABEL_REQUIREMENTS),
      benign: list(namespace, asLongAs(LABEL_REQUIREMENTS, `labelSelector=${encodeURIComponent('a=' + 'b'.repeat(60))}`))
    }
  ]
}

export interface CaseResult { what: string, hostileMs: number, benignMs: number, statuses: number[] }
export interface HostileResult { cases: CaseResult[], rounds: number }

/** The slowest /readyz answer, in ms, while `during` runs and for SETTLE_MS after it. */
async function slowestReadyz (probe: Pool, during: () => Promise<void>): Promise<number> {
  let running = true
  let slowest = 0
  const loop = (async () => {
    while (running) {
      const start = performance.now()
      const res = await probe.request({ method: 'GET', path: '/readyz' })
      await res.body.text()
      slowest = Math.max(slowest, performance.now() - start)
      await new Promise(resolve => setTimeout(resolve, PROBE_EVERY_MS))
    }
  })()
  await during()
  await new Promise(resolve => setTimeout(resolve, SETTLE_MS))
  running = false
  await loop
  return slowest
}

/** Each case's benign then hostile request, `rounds` times; the least of each kind's slowest answers. */
export async function runHostile (target: Target, namespace: string, rounds: number): Promise<HostileResult> {
  const connect = { ca: target.ca, cert: target.cert, key: target.key }
  const sender = new Pool(target.origin, { connections: 1, connect })
  const probe = new Pool(target.origin, { connections: 1, connect })
  let serial = 0
  const send = async (r: Request, statuses: number[]): Promise<void> => {
    const res = await sender.request({
      method: r.method,
      path: r.path,
      body: r.body === undefined ? undefined : JSON.stringify(r.body),
      headers: r.body === undefined ? {} : { 'content-type': 'application/json' },
      headersTimeout: 600_000,
      bodyTimeout: 600_000
    })
    await res.body.text()
    statuses.push(res.statusCode)
  }
  try {
    const cases: CaseResult[] = []
    for (const c of hostileCases(namespace)) {
      const result: CaseResult = { what: c.what, hostileMs: Infinity, benignMs: Infinity, statuses: [] }
      for (let round = 0; round < rounds; round++) {
        result.benignMs = Math.min(result.benignMs, await slowestReadyz(probe, () => send(c.benign(`b${++serial}`), [])))
        result.hostileMs = Math.min(result.hostileMs, await slowestReadyz(probe, () => send(c.hostile(`h${++serial}`), result.statuses)))
      }
      cases.push(result)
    }
    return { cases, rounds }
  } finally {
    await sender.close()
    await probe.close()
  }
}
