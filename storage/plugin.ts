// fp 'storage': the store and its watch caches for the whole app.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { startCompactor } from './compactor.js'
import type { Storage } from './interface.js'
import { createPostgresStorage, type StorageObserver } from './postgres.js'
import { createWatchCaches, type WatchCaches } from './watch-cache.js'
import { markStartUp } from '../resources/start-up-timeline.js'

declare module 'fastify' {
  interface FastifyInstance {
    storage: Storage
    /** Kinds register their prefixes while plugins register; the caches fill in onReady. */
    watchCaches: WatchCaches
  }
}

export interface StoragePluginOptions {
  databaseUrl: string
  /** How often history older than one interval is compacted. Default 5 minutes; 0 disables. */
  compactionIntervalMs?: number
  /** Compaction never drops the newest this-many revisions. Default 1000 (tests may pass 0). */
  compactionMinRetain?: number
  /** The database's latency and the write batches' sizes go here (the metrics plugin's). */
  observer?: StorageObserver
}

const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000

export default fp<StoragePluginOptions>(async function storagePlugin (fastify: FastifyInstance, opts: StoragePluginOptions) {
  const logger = fastify.log.child({ component: 'storage' })
  markStartUp('storage-connecting')
  const storage = await createPostgresStorage({ url: opts.databaseUrl, minRetain: opts.compactionMinRetain, logger, observer: opts.observer })
  const watchCaches = createWatchCaches(storage, { logger })
  fastify.decorate('storage', storage)
  fastify.decorate('watchCaches', watchCaches)

  const interval = opts.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS
  let compactor: { stop (): void } | undefined

  fastify.addHook('onReady', async () => {
    await watchCaches.start()
    if (interval > 0) compactor = startCompactor(storage, { intervalMs: interval, logger })
    // The fill leaves the keys unsorted (sorting 100,000 would hold readiness back); once the
    // server is ready they are sorted in slices, before a first list or write sorts them at once.
    if (fastify.hasDecorator('health')) {
      void fastify.health.afterStart().then(async () => {
        for (const cache of watchCaches.all()) await cache.settleKeys()
      })
    }
  })
  fastify.addHook('onClose', async () => {
    compactor?.stop()
    watchCaches.stop()
    await storage.close()
  })
}, { name: 'storage', fastify: '5.x' })
