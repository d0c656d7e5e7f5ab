// Continue tokens: the snapshot revision and the key to start after, opaque to clients.
import { badRequest } from '../../resources/status.js'

interface Token { v: string, rv: number, start: string }
const VERSION = 'meta.k8s.io/v1'

export const encodeContinue = (rv: number, start: string): string =>
  Buffer.from(JSON.stringify({ v: VERSION, rv, start } satisfies Token)).toString('base64url')

export function decodeContinue (token: string): { rv: number, start: string } {
  let parsed: Partial<Token>
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
  } catch {
    throw badRequest('continue key is not valid: the token is not base64-encoded JSON')
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.v !== VERSION) throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)')
  if (typeof parsed.rv !== 'number' || !Number.isSafeInteger(parsed.rv) || parsed.rv <= 0) throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)')
  if (typeof parsed.start !== 'string' || parsed.start === '' || parsed.start.split('/').some(s => s === '..' || s === '.')) throw badRequest('continue key is not valid: invalid start key')
  return { rv: parsed.rv, start: parsed.start }
}
