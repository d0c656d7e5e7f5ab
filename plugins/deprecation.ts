// Requests to a deprecated version of a kind: the reference server's Warning header
// (`299 - "<group>/<version> <Kind> is deprecated in v1.X+, unavailable in v1.Y+; use ..."`),
// the svc.io/deprecated audit annotation and apiserver_requested_deprecated_apis.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Resource, VersionLifecycle } from '../resources/define.js'
import { ANNOTATIONS } from '../resources/naming.js'

export function deprecationWarning (r: Resource, older: VersionLifecycle): string {
  if (older.warning !== undefined) return older.warning
  const replacement = older.replacement ?? `${r.apiVersion} ${r.kind}`
  const removed = older.removed === undefined ? '' : `, unavailable in v${older.removed}+`
  return `${r.group === '' ? '' : `${r.group}/`}${older.version} ${r.kind} is deprecated in v${older.deprecated ?? older.introduced}+${removed}; use ${replacement}`
}

declare module 'fastify' {
  interface FastifyRequest { deprecationWarning: string | null }
}

export default fp(async function deprecation (fastify: FastifyInstance) {
  fastify.decorateRequest('deprecationWarning', null)
  // Most servers serve no deprecated version: then no request looks further than this flag,
  // worked out again when the served kinds change (a CustomResourceDefinition's version).
  let anyServed = false
  let seenAt = -1
  const anyDeprecated = (): boolean => {
    if (seenAt !== fastify.resources.generation) {
      seenAt = fastify.resources.generation
      anyServed = fastify.resources.served().some(r => r.lifecycle?.deprecated !== undefined || (r.olderVersions ?? []).some(o => o.deprecated !== undefined && o.version === r.version))
    }
    return anyServed
  }

  fastify.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const info = request.requestInfo
    if (!info.isResourceRequest || !anyDeprecated()) return done()
    const older = fastify.resources.olderVersion(info.apiGroup, info.apiVersion, info.resource)
    if (older === undefined || older.deprecated === undefined) return done()
    // A kind served in another group's form is named as served there.
    const r = fastify.resources.converted(info.apiGroup, info.apiVersion, info.resource)?.served ?? fastify.resources.find({ group: info.apiGroup, resource: info.resource })!.resource
    const header = `299 - ${JSON.stringify(deprecationWarning(r, older))}`
    request.deprecationWarning = header
    // A watch writes its own headers, which keep what is set on the response now.
    if (info.verb === 'watch') reply.raw.setHeader('warning', header)
    fastify.metrics.requestedDeprecatedApi(info.apiGroup, info.apiVersion, info.resource, info.subresource, older.removed ?? '')
    fastify.audit.annotate(request, ANNOTATIONS.deprecated, 'true')
    if (older.removed !== undefined) fastify.audit.annotate(request, ANNOTATIONS.removedRelease, older.removed)
    done()
  })

  // Beside whatever warnings the handler gave.
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    const mine = request.deprecationWarning
    if (mine !== null) {
      const existing = reply.getHeader('warning')
      const others = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)]
      void reply.header('warning', others.length === 0 ? mine : [mine, ...others])
    }
    done(null, payload)
  })
}, { name: 'deprecation', dependencies: ['metrics', 'audit'] })
