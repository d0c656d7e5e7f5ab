import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import storagePlugin from '../../storage/plugin.js'
import { PREFIX, configMap, extractAttrs, key } from './fixtures.js'
import { freshDatabase } from '../helpers/postgres.js'

describe('storage plugin', () => {
  it('decorates storage and watch caches, fills the caches on ready, closes on close', async (t) => {
    const url = await freshDatabase(t)
    const app = Fastify()
    await app.register(storagePlugin, { databaseUrl: url, compactionIntervalMs: 0 })
    const cache = app.watchCaches.register(PREFIX, extractAttrs)
    try {
      await app.ready()
      await cache.ready
      const created = await app.storage.write({ type: 'create', key: key('a', 'x'), value: configMap('a', 'x') })
      await cache.waitForRevision(created.revision, 5000)
      assert.equal(cache.get(created.key)?.json, created.json)
    } finally {
      await app.close()
    }
    await assert.rejects(app.storage.write({ type: 'create', key: key('a', 'y'), value: configMap('a', 'y') }),
      { code: 'Unavailable' })
  })
})
