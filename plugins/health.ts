// /healthz, /livez, /readyz and their single checks, with verbose and repeatable exclude.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Resolves when healthy; throws (message logged, withheld from clients) when not. */
export type HealthCheck = () => Promise<void> | void
type Endpoint = 'healthz' | 'livez' | 'readyz'

export interface Health {
  add (name: string, check: HealthCheck, endpoints: Endpoint[]): void
  /** From now on /readyz answers not ready (graceful shutdown). */
  beginShutdown (): void
}

declare module 'fastify' {
  interface FastifyInstance { health: Health }
}

export default fp(async function health (fastify: FastifyInstance) {
  const checks: Record<Endpoint, Array<[string, HealthCheck]>> = { healthz: [], livez: [], readyz: [] }
  let shuttingDown = false
  const registry: Health = {
    add (name, check, endpoints) { for (const e of endpoints) checks[e].push([name, check]) },
    beginShutdown () { shuttingDown = true }
  }
  fastify.decorate('health', registry)
  registry.add('ping', () => {}, ['healthz', 'livez', 'readyz'])
  registry.add('log', () => {}, ['healthz', 'livez', 'readyz'])
  registry.add('shutdown', () => { if (shuttingDown) throw new Error('process is shutting down') }, ['readyz'])

  const run = async (request: FastifyRequest, [name, check]: [string, HealthCheck]): Promise<string | undefined> => {
    try {
      await check()
      return undefined
    } catch (err) {
      request.log.info({ check: name, err }, 'health check failed')
      return (err as Error).message
    }
  }

  for (const endpoint of ['healthz', 'livez', 'readyz'] as const) {
    fastify.get(`/${endpoint}`, async (request: FastifyRequest, reply: FastifyReply) => {
      const q = request.query as Record<string, string | string[] | undefined>
      const excluded = new Set(q.exclude === undefined ? [] : Array.isArray(q.exclude) ? q.exclude : [q.exclude])
      const verbose = q.verbose !== undefined && q.verbose !== 'false'
      const lines: string[] = []
      let failed = false
      for (const entry of checks[endpoint]) {
        const [name] = entry
        if (excluded.has(name)) {
          excluded.delete(name)
          lines.push(`[+]${name} excluded: ok`)
          continue
        }
        const problem = await run(request, entry)
        if (problem === undefined) lines.push(`[+]${name} ok`)
        else { failed = true; lines.push(`[-]${name} failed: reason withheld`) }
      }
      if (excluded.size > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].map(e => `"${e}"`).join(',')}`)
      reply.header('cache-control', 'no-cache, private').header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8')
      if (failed) return reply.code(500).send(`${lines.join('\n')}\n${endpoint} check failed\n`)
      if (!verbose) return reply.code(200).send('ok')
      return reply.code(200).send(`${lines.join('\n')}\n${endpoint} check passed\n`)
    })
    fastify.get(`/${endpoint}/:check`, async (request: FastifyRequest, reply: FastifyReply) => {
      const { check } = request.params as { check: string }
      const entry = checks[endpoint].find(([name]) => name === check)
      reply.header('cache-control', 'no-cache, private').header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8')
      if (entry === undefined) return reply.code(404).send('404 page not found\n')
      const problem = await run(request, entry)
      if (problem === undefined) return reply.code(200).send('ok')
      return reply.code(500).send(`internal server error: ${check} check failed\n`)
    })
  }
}, { name: 'health' })
