// Credentials the server presents to admission webhooks: the webhook plugins' kubeConfigFile
// (from --admission-control-config-file), whose `users` are matched by the webhook's service
// DNS name (`<name>.<namespace>.svc`, with `:port` when not 443) or its URL's host, then with
// leading segments replaced by `*` (`*.<namespace>.svc`), then `*`.
import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'

type AnyObject = Record<string, any>

export interface WebhookCredentials {
  cert?: string
  key?: string
  /** The Authorization header: `Bearer <token>` or `Basic <base64>`. */
  authorization?: string
}

export type CredentialResolver = (target: string) => WebhookCredentials

export const NO_CREDENTIALS: CredentialResolver = () => ({})

function material (user: AnyObject, field: string, baseDir: string): string | undefined {
  const data = user[`${field}-data`]
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64').toString('utf8')
  const path = user[field]
  if (typeof path === 'string' && path !== '') return readFileSync(isAbsolute(path) ? path : resolve(baseDir, path), 'utf8')
  return undefined
}

function credentialsOf (user: AnyObject, baseDir: string, file: string): WebhookCredentials {
  const out: WebhookCredentials = {}
  const cert = material(user, 'client-certificate', baseDir)
  const key = material(user, 'client-key', baseDir)
  if ((cert === undefined) !== (key === undefined)) throw new Error(`${file}: a user needs both client-certificate and client-key, or neither`)
  if (cert !== undefined) { out.cert = cert; out.key = key }
  let token = typeof user.token === 'string' && user.token !== '' ? user.token : undefined
  if (token === undefined && typeof user.tokenFile === 'string' && user.tokenFile !== '') {
    token = readFileSync(isAbsolute(user.tokenFile) ? user.tokenFile : resolve(baseDir, user.tokenFile), 'utf8').trim()
  }
  if (token !== undefined) out.authorization = `Bearer ${token}`
  else if (typeof user.username === 'string' && user.username !== '') {
    out.authorization = `Basic ${Buffer.from(`${user.username}:${String(user.password ?? '')}`).toString('base64')}`
  }
  return out
}

/** Reads the kubeConfigFile once, at start-up: a bad file stops the server there. */
export function credentialResolverFromKubeconfig (file: string, baseDir: string): CredentialResolver {
  const path = isAbsolute(file) ? file : resolve(baseDir, file)
  let config: AnyObject
  try {
    config = parseYaml(readFileSync(path, 'utf8')) as AnyObject
  } catch (err) {
    throw new Error(`admission webhook kubeConfigFile ${path}: ${(err as Error).message.split('\n')[0]}`)
  }
  const users = new Map<string, WebhookCredentials>()
  for (const entry of (Array.isArray(config?.users) ? config.users : []) as AnyObject[]) {
    if (typeof entry?.name !== 'string') throw new Error(`admission webhook kubeConfigFile ${path}: every user needs a name`)
    users.set(entry.name, credentialsOf(entry.user ?? {}, resolve(path, '..'), path))
  }
  return (target) => {
    const exact = users.get(target)
    if (exact !== undefined) return exact
    const steps = target.split('.')
    for (let i = 1; i < steps.length; i++) {
      const wildcard = users.get(`*.${steps.slice(i).join('.')}`)
      if (wildcard !== undefined) return wildcard
    }
    if (target.endsWith(':443')) {
      const withoutPort = target.slice(0, -4)
      const found = users.get(withoutPort)
      if (found !== undefined) return found
    }
    return users.get('*') ?? {}
  }
}
