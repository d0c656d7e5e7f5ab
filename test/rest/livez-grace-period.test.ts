// Post-start hooks on the health endpoints, and --livez-grace-period: /livez takes a hook still
// running for done until the grace period from start has passed; /readyz and /healthz never do.
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import health from '../../plugins/health.js'

/** The health plugin with one post-start hook that finishes when `finish` is called. */
async function withSlowHook (t: { after (fn: () => unknown): void }, livezGracePeriodMs?: number): Promise<{ app: FastifyInstance, finish (): void }> {
  const app = Fastify()
  let finish = (): void => {}
  await app.register(health, { livezGracePeriodMs })
  app.health.addPostStartHook('slow/start', () => new Promise<void>(resolve => { finish = resolve }))
  app.addHook('onReady', async () => { app.health.runPostStartHooks() })
  await app.ready()
  t.after(async () => { finish(); await app.close() })
  return { app, finish: () => finish() }
}

const status = async (app: FastifyInstance, url: string): Promise<number> => (await app.inject({ method: 'GET', url })).statusCode

it('fails every endpoint while a post-start hook runs, without a grace period', async (t) => {
  const { app, finish } = await withSlowHook(t)
  for (const endpoint of ['/healthz', '/livez', '/readyz']) assert.equal(await status(app, endpoint), 500, endpoint)
  const verbose = await app.inject({ method: 'GET', url: '/livez?verbose' })
  assert.match(verbose.body, /^\[-\]poststarthook\/slow\/start failed: reason withheld$/m)
  assert.equal(await status(app, '/livez/poststarthook/slow/start'), 500)
  finish()
  await app.health.postStartHooksFinished()
  for (const endpoint of ['/healthz', '/livez', '/readyz', '/livez/poststarthook/slow/start']) assert.equal(await status(app, endpoint), 200, endpoint)
})

it('answers /livez ok for a post-start hook still running within the grace period, and /readyz not', async (t) => {
  const { app } = await withSlowHook(t, 60_000)
  assert.equal(await status(app, '/livez'), 200)
  assert.match((await app.inject({ method: 'GET', url: '/livez?verbose' })).body, /^\[\+\]poststarthook\/slow\/start ok$/m)
  assert.equal(await status(app, '/livez/poststarthook/slow/start'), 200)
  assert.equal(await status(app, '/readyz'), 500)
  assert.equal(await status(app, '/healthz'), 500)
})

it('fails /livez for a post-start hook still running once the grace period has passed', async (t) => {
  const { app } = await withSlowHook(t, 200)
  assert.equal(await status(app, '/livez'), 200)
  await sleep(250)
  assert.equal(await status(app, '/livez'), 500)
})

it('fails a post-start hook that threw on every endpoint, and says why to the caller that waits', async (t) => {
  const app = Fastify()
  t.after(() => app.close())
  await app.register(health, { livezGracePeriodMs: 0 })
  app.health.addPostStartHook('broken', async () => { throw new Error('no database') })
  app.addHook('onReady', async () => { app.health.runPostStartHooks() })
  await app.ready()
  await assert.rejects(app.health.postStartHooksFinished(), /no database/)
  assert.equal(await status(app, '/livez/poststarthook/broken'), 500)
})
