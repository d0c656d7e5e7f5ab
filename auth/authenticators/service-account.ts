// Service-account tokens: JWTs this server signed. With lookup on, a token whose account,
// secret or bound object is gone (or was recreated with another uid) is revoked.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { GROUPS, SERVICE_ACCOUNTS } from '../../resources/naming.js'
import type { VerifiedToken } from '../service-account-tokens.js'
import type { UserInfo } from '../../resources/user-info.js'
import { readObject } from './lookup.js'

const EXTRA = {
  podName: `${GROUPS.authentication}/pod-name`,
  podUid: `${GROUPS.authentication}/pod-uid`,
  nodeName: `${GROUPS.authentication}/node-name`,
  nodeUid: `${GROUPS.authentication}/node-uid`,
  credentialId: `${GROUPS.authentication}/credential-id`
}

export function serviceAccountUser (namespace: string, name: string, uid?: string): UserInfo {
  return {
    username: `${SERVICE_ACCOUNTS.userPrefix}${namespace}:${name}`,
    ...(uid === undefined ? {} : { uid }),
    groups: [SERVICE_ACCOUNTS.group, `${SERVICE_ACCOUNTS.group}:${namespace}`]
  }
}

export default fp(async function serviceAccount (fastify: FastifyInstance) {
  const tokens = fastify.serviceAccountTokens

  async function mustExist (plural: string, namespace: string, ref: { name: string, uid: string }, what: string): Promise<Record<string, any>> {
    const obj = await readObject(fastify, { group: '', resource: plural }, namespace, ref.name)
    if (obj === undefined) throw new Error(`${what} ${namespace === '' ? '' : `${namespace}/`}${ref.name} has been deleted`)
    if (ref.uid !== undefined && ref.uid !== '' && obj.metadata?.uid !== ref.uid) {
      throw new Error(`${what} UID (${String(obj.metadata?.uid)}) does not match claim (${ref.uid})`)
    }
    if (obj.metadata?.deletionTimestamp != null) throw new Error(`${what} ${ref.name} is being deleted`)
    return obj
  }

  async function checkStillValid (v: VerifiedToken, token: string): Promise<void> {
    const ns = v.ref.namespace
    await mustExist('serviceaccounts', ns, v.ref, 'service account')
    if (v.legacy) {
      const secret = await mustExist('secrets', ns, { name: v.secretName!, uid: '' }, 'secret')
      const stored = secret.data?.token === undefined ? '' : Buffer.from(secret.data.token, 'base64').toString('utf8')
      if (stored !== token) throw new Error('token does not match the token in its secret')
      return
    }
    if (v.bound?.secret !== undefined) await mustExist('secrets', ns, v.bound.secret, 'bound secret')
    if (v.bound?.pod !== undefined) await mustExist('pods', ns, v.bound.pod, 'bound pod')
    if (v.bound?.node !== undefined) await mustExist('nodes', '', v.bound.node, 'bound node')
  }

  fastify.authn.addToken('service-account', async (token, audiences) => {
    const v = await tokens.verify(token)
    if (v === undefined) return undefined
    let matched: string[] | undefined
    if (!v.legacy) {
      matched = audiences.length === 0 ? v.audiences : audiences.filter(a => v.audiences.includes(a))
      if (audiences.length > 0 && matched.length === 0) throw new Error('token audiences is invalid for the target audiences')
    }
    if (tokens.lookup) await checkStillValid(v, token)
    const user = serviceAccountUser(v.ref.namespace, v.ref.name, v.ref.uid)
    const extra: Record<string, string[]> = {}
    if (v.bound?.pod !== undefined) { extra[EXTRA.podName] = [v.bound.pod.name]; extra[EXTRA.podUid] = [v.bound.pod.uid] }
    if (v.bound?.node !== undefined) { extra[EXTRA.nodeName] = [v.bound.node.name]; extra[EXTRA.nodeUid] = [v.bound.node.uid] }
    if (v.jti !== undefined) extra[EXTRA.credentialId] = [`JTI=${v.jti}`]
    if (Object.keys(extra).length > 0) user.extra = extra
    return { user, audiences: matched }
  })
}, { name: 'authn:service-account', dependencies: ['authn', 'rest', 'service-account-tokens'] })
