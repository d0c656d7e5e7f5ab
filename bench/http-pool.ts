// The load generator's HTTP clients: an undici pool per target with the run's credentials, and
// a timed GET that fails loudly on anything but 200.
import { performance } from 'node:perf_hooks'
import { Pool } from 'undici'

export interface PoolTarget { origin: string, ca?: string, cert?: string, key?: string }

export function pool (t: PoolTarget, connections: number): Pool {
  return new Pool(t.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: t.ca === undefined ? { timeout: 60_000 } : { ca: t.ca, cert: t.cert, key: t.key, rejectUnauthorized: true, timeout: 60_000 }
  })
}

/** GET `path` on `p`: how long the whole answer took, and its body (as text; empty when `accept` asks for a binary form, which is read in full but not decoded). */
export async function timedGet (p: Pool, path: string, accept?: string): Promise<{ ms: number, body: string }> {
  const t0 = performance.now()
  const res = await p.request({ method: 'GET', path, headers: accept === undefined ? undefined : { accept } })
  const binary = accept !== undefined && !accept.startsWith('application/json')
  const body = binary ? await res.body.arrayBuffer().then(() => '') : await res.body.text()
  if (res.statusCode !== 200) throw new Error(`LIST ${path}: ${res.statusCode} ${body.slice(0, 300)}`)
  return { ms: performance.now() - t0, body }
}
