// The generic REST plugin: every registered kind's endpoints under /api and /apis, each request
// resolved to its endpoint and served by its verb's handler (dispatch.ts); kinds add themselves
// through `fastify.resources.add` (registry.ts).
import { WatchCounts } from '../watch-counts.js'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createPools, type PoolDefinition, type StoragePools } from '../../storage/value-pools.js'
import { MAX_BUFFERED_BYTES, type WatchSettings } from './watch.js'
import { createRegistry, type RegistryOptions } from './registry.js'
import { restCall } from './dispatch.js'
import { relay, type RestContext } from './rest-call.js'

export { translateFieldSelector } from './served-form.js'

export const BODY_LIMIT = 3 * 1024 * 1024

declare module 'fastify' {
  interface FastifyInstance {
    /** Ends every open watch stream cleanly (graceful shutdown). */
    endWatches (): void
    /** The value pools kinds claim from (a Service's addresses and ports). */
    pools: StoragePools
  }
}

export interface RestOptions extends RegistryOptions {
  watch?: Partial<WatchSettings>
  /** The value pools configured by flags (--service-cluster-ip-range, --service-node-port-range). */
  pools?: readonly PoolDefinition[]
}

export default fp(async function rest (fastify: FastifyInstance, opts: RestOptions) {
  const watchSettings: WatchSettings = {
    bookmarkIntervalMs: opts.watch?.bookmarkIntervalMs ?? 10_000,
    maxBufferedBytes: opts.watch?.maxBufferedBytes ?? MAX_BUFFERED_BYTES,
    open: new Set()
  }
  // Shutdown ends the open watch streams as a client expects a watch to end: its last chunk
  // written, so it re-watches elsewhere (plugins/shutdown.ts decides when).
  fastify.decorate('endWatches', () => { for (const finish of [...watchSettings.open!]) finish() })
  fastify.decorate('watchCounts', new WatchCounts())
  const pools = createPools(fastify.storage, opts.pools ?? [])
  fastify.decorate('pools', pools)
  const registry = createRegistry(fastify, pools, opts)
  fastify.decorate('resources', registry)
  const context: RestContext = { registry, watch: watchSettings }

  // Bodies are kept as bytes and decoded by the handler, which knows which media types fit.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => { done(null, body) })

  async function serve (request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const call = restCall(request, reply, context)
    try {
      return await call.handler(call)
    } catch (err) {
      // A refused write still relays what admission gathered.
      if (call.caller !== undefined) relay(reply, call.caller)
      throw err
    }
  }

  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
  for (const url of ['/api/*', '/apis/*']) {
    fastify.route({ method: [...methods], url, handler: serve, exposeHeadRoute: false, onRequest: emptyContentTypeIsNone })
  }
}, { name: 'rest', dependencies: ['request-info', 'errors', 'storage', 'admission', 'protobuf', 'authz', 'streams'] })

/**
 * An empty Content-Type header is no Content-Type, as the reference's decoder takes it (a create
 * then reads as JSON); Fastify would refuse it as a malformed media type before the handler.
 */
function emptyContentTypeIsNone (request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (request.headers['content-type']?.trim() === '') delete request.headers['content-type']
  done()
}
