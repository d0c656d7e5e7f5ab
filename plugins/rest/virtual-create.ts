// Kinds stored nowhere (access and identity reviews): a create answers the request object
// with the server's answer filled in.
import { pathNotFound } from '../../resources/status.js'
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
    authenticateToken: (token, audiences) => authn.authenticateToken(token, audiences),
    async changeParent (target, request) {
      const store = call.context.registry.lookup(target.group, target.version, target.plural)
      if (store === undefined) throw pathNotFound()
      const name = typeof request.metadata?.name === 'string' ? request.metadata.name : ''
      const admitted = await call.store.admitCreate(namespace, name, '', request, o, c)
      await store.changeParent(namespace, name, target.subresource, admitted, o, c)
    }
  })
  relay(call.reply, c)
  // A kind that changes another's object answers a Status of its own (core bindings), as the reference's.
  if (answer.kind === 'Status') return sendDocument(call.reply, 201, answer, call.enc)
  const { kind: _kind, apiVersion: _apiVersion, ...fields } = answer
  return sendDocument(call.reply, 201, { kind: r.kind, apiVersion, ...fields }, call.enc)
}
