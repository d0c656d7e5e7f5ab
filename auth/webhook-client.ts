// A client for a webhook described by a kubeconfig file (authorization webhooks): the current
// context's server, CA and client credentials; POSTs JSON and returns the decoded answer.
import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { request as httpsRequest, Agent } from 'node:https'
import { request as httpRequest } from 'node:http'
import { parse as parseYaml } from 'yaml'

type AnyObject = Record<string, any>

export interface WebhookClient {
  /** The current context's cluster server (callers that accept only https check its protocol). */
  readonly server: URL
  post (body: unknown): Promise<{ status: number, body: unknown }>
}

const DEFAULT_TIMEOUT_MS = 30_000

/** Reads `<field>-data` (base64) or `<field>` (a path relative to the file). */
function material (section: AnyObject, field: string, baseDir: string): string | undefined {
  const data = section[`${field}-data`]
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64').toString('utf8')
  const path = section[field]
  if (typeof path === 'string' && path !== '') return readFileSync(isAbsolute(path) ? path : resolve(baseDir, path), 'utf8')
  return undefined
}

function pick (list: unknown, name: string | undefined): AnyObject | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined
  const found = name === undefined ? undefined : list.find((e: AnyObject) => e?.name === name)
  return (found ?? list[0]) as AnyObject
}

export function webhookClientFromKubeconfig (file: string, timeoutMs = DEFAULT_TIMEOUT_MS): WebhookClient {
  const config = parseYaml(readFileSync(file, 'utf8')) as AnyObject
  const baseDir = dirname(file)
  const context = pick(config?.contexts, config?.['current-context'])?.context as AnyObject | undefined
  const cluster = pick(config?.clusters, context?.cluster)?.cluster as AnyObject | undefined
  const user = (pick(config?.users, context?.user)?.user ?? {}) as AnyObject
  if (cluster === undefined || typeof cluster.server !== 'string') throw new Error(`${file}: no cluster with a server`)
  const url = new URL(cluster.server)
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (typeof user.token === 'string') headers.authorization = `Bearer ${user.token}`
  const agent = url.protocol === 'https:'
    ? new Agent({
      ca: material(cluster, 'certificate-authority', baseDir),
      cert: material(user, 'client-certificate', baseDir),
      key: material(user, 'client-key', baseDir),
      rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
      keepAlive: true
    })
    : undefined

  return {
    server: url,
    post (body) {
      const payload = Buffer.from(JSON.stringify(body))
      return new Promise((resolvePromise, reject) => {
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest
        const req = send(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(payload.length) }, timeout: timeoutMs }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            let parsed: unknown
            try { parsed = text === '' ? undefined : JSON.parse(text) } catch { parsed = text }
            resolvePromise({ status: res.statusCode ?? 0, body: parsed })
          })
          res.on('error', reject)
        })
        req.on('timeout', () => req.destroy(new Error(`webhook timed out after ${timeoutMs}ms`)))
        req.on('error', reject)
        req.end(payload)
      })
    }
  }
}
