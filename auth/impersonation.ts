// Impersonation: a caller acts as another user through Impersonate-* headers after being
// allowed the `impersonate` verb on each thing it claims (users, groups, service accounts,
// user extras, uids); the request then runs, and is authorized, as the target.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { badRequest } from '../resources/status.js'
import { GROUPS, IMPERSONATE_HEADERS, SERVICE_ACCOUNTS } from '../resources/naming.js'
import { AUTHENTICATED_GROUP, type UserInfo } from '../resources/user-info.js'
import { forbiddenMessage } from './authz.js'
import { type Attributes } from '../resources/authorization.js'
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from './authenticators/anonymous.js'

/** Every value of a header, repeated headers kept apart (Node joins unknown ones with ", "). */
function headerValues (request: FastifyRequest, name: string): string[] {
  const distinct = request.raw.headersDistinct?.[name]
  if (distinct !== undefined) return distinct
  const v = request.headers[name]
  return v === undefined ? [] : Array.isArray(v) ? v : [v]
}

const decodeKey = (key: string): string => {
  try { return decodeURIComponent(key).toLowerCase() } catch { return key.toLowerCase() }
}

/** What every Impersonate-* header name starts with, lower-cased as Node gives names. */
const IMPERSONATION_PREFIX = 'impersonate-'

export default fp(async function impersonation (fastify: FastifyInstance) {
  fastify.addHook('onRequest', async (request) => {
    // Almost no request impersonates: one pass over the header names settles it before
    // Node is asked to build its repeated-header view.
    if (!Object.keys(request.headers).some(name => name.startsWith(IMPERSONATION_PREFIX))) return
    const users = headerValues(request, IMPERSONATE_HEADERS.user)
    const groups = headerValues(request, IMPERSONATE_HEADERS.group)
    const uids = headerValues(request, IMPERSONATE_HEADERS.uid)
    // A Map: extra keys are the client's (`__proto__`, `constructor`) and must stay data.
    const extraValues = new Map<string, string[]>()
    for (const name of Object.keys(request.headers)) {
      if (!name.startsWith(IMPERSONATE_HEADERS.extraPrefix)) continue
      const key = decodeKey(name.slice(IMPERSONATE_HEADERS.extraPrefix.length))
      extraValues.set(key, [...(extraValues.get(key) ?? []), ...headerValues(request, name)])
    }
    const extraKeys = [...extraValues.keys()]
    const extra = Object.fromEntries(extraValues) as Record<string, string[]>
    if (users.length === 0 && groups.length === 0 && uids.length === 0 && extraKeys.length === 0) return

    const requested = [
      ...groups.map(g => `Impersonate-Group: ${g}`),
      ...uids.map(u => `Impersonate-Uid: ${u}`),
      ...extraKeys.flatMap(k => extraValues.get(k)!.map(v => `Impersonate-Extra-${k}: ${v}`))
    ]
    if (users.length === 0) throw badRequest(`requested [${requested.join(' ')}] without impersonating a user`)
    if (users.length > 1) throw badRequest('only one Impersonate-User header may be given')
    if (uids.length > 1) throw badRequest('only one Impersonate-Uid header may be given')

    const actor = request.user
    const check = async (a: Partial<Attributes> & { resource: string, name: string }): Promise<void> => {
      const attrs: Attributes = {
        user: actor, verb: 'impersonate', isResourceRequest: true, path: request.requestInfo.path,
        apiGroup: '', apiVersion: '', subresource: '', namespace: '', ...a
      }
      const verdict = await fastify.authz.authorize(attrs)
      if (verdict.decision !== 'Allow') throw forbiddenMessage(attrs, verdict.reason)
    }

    const username = users[0]!
    let targetGroups = [...groups]
    if (username.startsWith(SERVICE_ACCOUNTS.userPrefix)) {
      const [namespace, name] = username.slice(SERVICE_ACCOUNTS.userPrefix.length).split(':', 2) as [string, string | undefined]
      await check({ resource: 'serviceaccounts', namespace, name: name ?? '' })
      // A service account's groups follow from its name.
      if (groups.length === 0) targetGroups = [SERVICE_ACCOUNTS.group, `${SERVICE_ACCOUNTS.group}:${namespace}`]
    } else {
      await check({ resource: 'users', name: username })
    }
    for (const group of groups) await check({ resource: 'groups', name: group })
    for (const key of extraKeys) for (const value of extraValues.get(key)!) await check({ resource: 'userextras', subresource: key, name: value })
    for (const uid of uids) await check({ resource: 'uids', apiGroup: GROUPS.authentication, name: uid })

    const always = username === ANONYMOUS_USER ? UNAUTHENTICATED_GROUP : AUTHENTICATED_GROUP
    if (!targetGroups.includes(always)) targetGroups.push(always)
    const target: UserInfo = { username, groups: targetGroups }
    if (uids.length === 1) target.uid = uids[0]
    if (extraKeys.length > 0) target.extra = extra
    request.log.debug({ actor: actor.username, target: username }, 'impersonating')
    request.user = target
  })
}, { name: 'impersonation', dependencies: ['authn', 'authz'] })
