// Kinds stored nowhere (access and identity reviews): a create answers the request object
// with the server's answer filled in.
import { parseWriteOptions } from './options.js'
import { sendDocument } from './encode.js'
import { callerOf, relay, type RestCall } from './rest-call.js'
import { decodeServed } from './served-form.js'
import { checkTypeMeta } from './type-meta.js'

export async function createVirtual (call: RestCall): Promise<unknown> {
  const { stored: r, namespace } = call
  const body = decodeServed(call, r.kind)
  // The answer names the group as the path spelled it.
  const apiVersion = `${call.info.pathGroup === '' ? r.group : call.info.pathGroup}/${r.version}`
  checkTypeMeta(body, r, apiVersion)
  const o = parseWriteOptions(call.query, 'CreateOptions')
  const c = callerOf(call, o.fieldManager)
  const { authz, authn } = call.request.server
  const answer = await call.store.createVirtual(namespace, body, o, c, {
    user: call.request.user,
    namespace,
    authorize: (attrs) => authz.authorize(attrs),
    rules: (user, ns) => authz.rules(user, ns),
    authenticateToken: (token, audiences) => authn.authenticateToken(token, audiences)
  })
  relay(call.reply, c)
  const { kind: _kind, apiVersion: _apiVersion, ...fields } = answer
  return sendDocument(call.reply, 201, { kind: r.kind, apiVersion, ...fields }, call.enc)
}
