// The server's own health checks: the database answers (every probe), and every kind's watch
// cache has filled (readiness only: a server still filling is alive but cannot serve lists).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

export default fp(async function readiness (app: FastifyInstance) {
  app.health.add('postgres', async () => { await app.storage.currentRevision() }, ['healthz', 'livez', 'readyz'])
  app.health.add('watch-caches', async () => {
    const pending = app.watchCaches.all().length === 0
    if (pending) throw new Error('watch caches not started')
    await Promise.all(app.watchCaches.all().map(c => c.ready))
  }, ['readyz'])
}, { name: 'readiness', dependencies: ['health', 'storage'] })
