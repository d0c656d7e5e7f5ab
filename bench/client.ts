// The benchmark's own API calls (set-up and counts, not measured load): one connection each.
import { Pool } from 'undici'
import type { Target } from './load.js'

export async function api (target: Target, method: string, path: string, body?: string): Promise<{ status: number, body: string }> {
  const pool = new Pool(target.origin, { connections: 1, connect: { ca: target.ca, cert: target.cert, key: target.key } })
  try {
    const res = await pool.request({ method: method as 'GET', path, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } })
    return { status: res.statusCode, body: await res.body.text() }
  } finally {
    await pool.close()
  }
}

export async function ensure (target: Target, method: string, path: string, body: string, okCodes = [200, 201, 409]): Promise<string> {
  const res = await api(target, method, path, body)
  if (!okCodes.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`)
  return res.body
}

export async function countConfigMaps (target: Target, cached = true): Promise<number> {
  const res = await api(target, 'GET', `/api/v1/configmaps?limit=1${cached ? '&resourceVersion=0' : ''}`)
  const doc = JSON.parse(res.body) as { items: unknown[], metadata: { remainingItemCount?: number } }
  return doc.items.length + (doc.metadata.remainingItemCount ?? 0)
}

/** The byte size of every cached ConfigMap's stored JSON, read page by page. */
export async function configMapBytes (target: Target): Promise<{ objects: number, bytes: number }> {
  let objects = 0
  let bytes = 0
  let token = ''
  do {
    const res = await api(target, 'GET', `/api/v1/configmaps?limit=5000${token === '' ? '' : `&continue=${encodeURIComponent(token)}`}`)
    if (res.status !== 200) throw new Error(`LIST configmaps: ${res.status} ${res.body.slice(0, 300)}`)
    const doc = JSON.parse(res.body) as { items: unknown[], metadata: { continue?: string } }
    for (const item of doc.items) bytes += Buffer.byteLength(JSON.stringify(item))
    objects += doc.items.length
    token = doc.metadata.continue ?? ''
  } while (token !== '')
  return { objects, bytes }
}

