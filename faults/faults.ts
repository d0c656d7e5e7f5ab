// The faults, each one step the runner takes while the workload runs.
import type { Storage } from '../storage/interface.js'
import type { CompactionRecord } from './history.js'
import { withDatabase, type Cluster } from './cluster.js'
import type { Workload } from './workload.js'

export interface Fault {
  name: string
  inject (c: Cluster, ctx: FaultContext): Promise<string>
}

export interface FaultContext {
  /** The harness's own connection to the store, used to compact. */
  storage: Storage
  compactions: CompactionRecord[]
  workload: Workload
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** Compacts the log up to its head, recording when the compaction had committed. */
export async function compactToHead (ctx: FaultContext): Promise<number> {
  const head = await ctx.storage.currentRevision()
  const revision = await ctx.storage.compact(head)
  ctx.compactions.push({ revision, doneAt: Date.now() })
  return revision
}

export const FAULTS: Fault[] = [
  {
    name: 'postgres fast restart',
    async inject (c) {
      await c.restartPostgres('fast')
      return 'stopped (fast: clients disconnected, checkpoint) and started again'
    }
  },
  {
    name: 'compaction during watches and paginated lists',
    async inject (c, ctx) {
      // Twice, a moment apart: watches resuming and lists between pages meet it at different
      // points. The first runs while a list page is held on each server, whose continue and a
      // watch from its revision then go out below the compacted revision.
      let compaction: Promise<number> | undefined
      const compact = (): Promise<number> => (compaction ??= compactToHead(ctx))
      // A probe that cannot start (its server restarting) is left out; the compaction still runs.
      await Promise.all(c.servers.map(async (_, i) => { await ctx.workload.acrossCompaction(i, compact).catch(() => {}) }))
      const first = await compact()
      await sleep(300)
      const second = await compactToHead(ctx)
      return `compacted to ${first}, then ${second}`
    }
  },
  {
    name: 'LISTEN connection cut silently',
    async inject (c) {
      const n = c.proxy.silenceListeners()
      // Writes go on while no notification can arrive: the watches must live on the log's poll.
      await sleep(3000)
      c.proxy.resetSilenced()
      return `${n} LISTEN connections silent for 3 s, then reset`
    }
  },
  {
    name: 'server SIGKILL',
    async inject (c) {
      const index = Math.floor(Math.random() * c.servers.length)
      await c.killServer(index)
      return `server ${index} killed and started again`
    }
  },
  {
    name: 'postgres immediate restart',
    async inject (c) {
      await c.restartPostgres('immediate')
      return 'stopped (immediate: no checkpoint, crash recovery at start) and started again'
    }
  },
  {
    name: 'LISTEN backend terminated',
    async inject (c) {
      const n = await withDatabase(c.databaseUrl, async (client) =>
        (await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()")).rowCount ?? 0)
      return `${n} LISTEN backends terminated`
    }
  }
]
