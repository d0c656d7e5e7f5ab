// /healthz, /livez, /readyz and their single checks, with verbose and repeatable exclude.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { markStartUp } from '../resources/start-up-timeline.js'

/** Resolves when healthy; throws (message logged, withheld from clients) when not. */
export type HealthCheck = () => Promise<void> | void
type Endpoint = 'healthz' | 'livez' | 'readyz'

export interface Health {
  add (name: string, check: HealthCheck, endpoints: Endpoint[]): void
  /**
   * A start-up step that runs once the server is ready, while it already serves, as the
   * reference's post-start hooks: `poststarthook/<name>` fails on every endpoint until it has
   * finished, except on /livez within the livez grace period from the server's start.
   */
  addPostStartHook (name: string, run: () => Promise<void>): void
  /** Starts the post-start hooks, all at once; called once. */
  runPostStartHooks (): void
  /** Resolves once every post-start hook has finished; rejects with the first failure. */
  postStartHooksFinished (): Promise<void>
  /**
   * Resolves once every post-start hook has finished (never, if one fails), whether or not they
   * have been started yet: for work that must not slow the start down, as the reference's
   * controller manager starts only once the API server is ready.
   */
  afterStart (): Promise<void>
  /** From now on /readyz answers not ready (graceful shutdown), and the shutdown's first steps run. */
  beginShutdown (): void
  /**
   * Work to start as shutdown begins, before the shutdown delay (the reference's pre-shutdown
   * hooks): taking this server out of what sends clients here. A close waits for it.
   */
  onShutdown (step: () => Promise<void>): void
}

declare module 'fastify' {
  interface FastifyInstance { health: Health }
}

export interface HealthOptions {
  /** --livez-grace-period: how long after start /livez takes unfinished post-start hooks for done. */
  livezGracePeriodMs?: number
}

export default fp(async function health (fastify: FastifyInstance, opts: HealthOptions) {
  const startedAt = performance.now()
  const gracePeriodMs = opts.livezGracePeriodMs ?? 0
  const checks: Record<Endpoint, Array<[string, HealthCheck]>> = { healthz: [], livez: [], readyz: [] }
  let shuttingDown = false
  const hooks: Array<{ name: string, run: () => Promise<void>, settle (state: 'done' | Error): void }> = []
  let finished: Promise<void> | undefined
  let started!: () => void
  const afterStart = new Promise<void>((resolve) => { started = resolve })
  const registry: Health = {
    add (name, check, endpoints) { for (const e of endpoints) checks[e].push([name, check]) },
    addPostStartHook (name, run) {
      let state: 'pending' | 'done' | Error = 'pending'
      hooks.push({ name, run, settle (s) { state = s } })
      const check: HealthCheck = () => {
        if (state === 'done') return
        throw state === 'pending' ? new Error('not finished') : state
      }
      // A kubelet probing /livez during a long start would otherwise restart the server before it finishes.
      const livez: HealthCheck = () => { if (performance.now() - startedAt >= gracePeriodMs) check() }
      registry.add(`poststarthook/${name}`, check, ['healthz', 'readyz'])
      checks.livez.push([`poststarthook/${name}`, livez])
    },
    runPostStartHooks () {
      // All at once, as the reference runs each in a goroutine of its own: the default roles'
      // and the flow schemas' bootstraps wait on different things, and readiness on both.
      // Settled once every hook is, so a close (preClose) never overtakes one still running.
      finished ??= Promise.allSettled(hooks.map(async ({ name, run, settle }) => {
        try {
          await run()
          markStartUp(`post-start hook ${name} done`)
          settle('done')
        } catch (err) {
          settle(err as Error)
          throw err
        }
      })).then((results) => {
        for (const r of results) if (r.status === 'rejected') throw r.reason
      })
      finished.then(started, () => {}) // the failure is the caller's, through postStartHooksFinished
    },
    postStartHooksFinished () { return finished ?? Promise.reject(new Error('post-start hooks not started')) },
    afterStart: () => afterStart,
    beginShutdown () {
      if (shuttingDown) return
      shuttingDown = true
      shutdownSteps = Promise.allSettled(shutdownStepsToRun.map(async step => { await step() })).then(() => {})
    },
    onShutdown (step) { shutdownStepsToRun.push(step) }
  }
  const shutdownStepsToRun: Array<() => Promise<void>> = []
  let shutdownSteps: Promise<void> | undefined
  fastify.decorate('health', registry)
  fastify.addHook('preClose', async () => {
    await finished?.catch(() => {})
    await shutdownSteps
  })
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
      reply.header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8')
      if (failed) return reply.code(500).send(`${lines.join('\n')}\n${endpoint} check failed\n`)
      if (!verbose) return reply.code(200).send('ok')
      return reply.code(200).send(`${lines.join('\n')}\n${endpoint} check passed\n`)
    })
    // A post-start hook's name has slashes of its own (poststarthook/rbac/bootstrap-roles).
    fastify.get(`/${endpoint}/*`, async (request: FastifyRequest, reply: FastifyReply) => {
      const { '*': check } = request.params as { '*': string }
      const entry = checks[endpoint].find(([name]) => name === check)
      reply.header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8')
      if (entry === undefined) return reply.code(404).send('404 page not found\n')
      const problem = await run(request, entry)
      if (problem === undefined) return reply.code(200).send('ok')
      return reply.code(500).send(`internal server error: ${check} check failed\n`)
    })
  }
}, { name: 'health' })
