// The server process's entry. It reads the storage flags alone and starts the embedded
// PostgreSQL on the data directory they name, then loads the rest of the server (bin/serve.ts:
// every flag, the certificates, the app), which loads while the database starts. So this
// module and what it imports stay small: all of it is loaded and run before PostgreSQL's
// process is spawned (in the bundle, bin/serve.ts is a chunk of its own, loaded by import()).
import nodeModule from 'node:module'
import { resolve } from 'node:path'
import { clusterExists, startEmbeddedPostgres } from '../storage/embedded.js'
import { fail } from './fail.js'
import { readStorageFlags } from './flags/storage.js'
import type { EarlyDatabase } from './serve.js'
import { stopOnSignal } from './stop-on-signal.js'
import { markStartUp } from '../resources/start-up-timeline.js'

/**
 * `npm start` and the image preload jemalloc into this process (README, benchmark): it is this
 * process's allocator, not its children's. The embedded PostgreSQL keeps its own, and where
 * the library is missing the loader's warning is not repeated for every program started here.
 */
function keepPreloadToThisProcess (): void {
  const preload = process.env.LD_PRELOAD
  if (preload === undefined) return
  const rest = preload.split(/[:\s]+/).filter(lib => lib !== '' && !lib.includes('libjemalloc'))
  if (rest.length > 0) process.env.LD_PRELOAD = rest.join(':')
  else delete process.env.LD_PRELOAD
}

/**
 * Starts the embedded PostgreSQL the command line asks for, if it asks for one on a data
 * directory that already holds a cluster; resolves once its process is spawned. A first start
 * (initdb) waits until the whole command line is known to be right, and so does any failure:
 * bin/serve.ts reports it after the flags.
 */
async function startDatabaseEarly (args: string[]): Promise<EarlyDatabase | undefined> {
  if (args.includes('--help') || args.includes('-h')) return undefined
  let storage
  try {
    storage = readStorageFlags(args, process.env)
  } catch {
    return undefined // the full parse names what is wrong
  }
  if ((storage.storageUrl ?? '') !== '' || !await clusterExists(storage.dataDir)) return undefined
  let spawned!: () => void
  const spawning = new Promise<void>((resolve) => { spawned = resolve })
  const stopStarting = new AbortController()
  const started = startEmbeddedPostgres(resolve(storage.dataDir), { onSpawn: spawned, signal: stopStarting.signal })
  started.catch(() => {})
  // From the spawn on, a signal stops the database before the process ends.
  const stopping = stopOnSignal(started, stopStarting)
  // Loading the rest compiles and runs it in one synchronous stretch: PostgreSQL's process is
  // under way first.
  await Promise.race([spawning, started.then(() => {}, () => {})])
  return { dataDir: resolve(storage.dataDir), started, release: () => { stopping.release() } }
}

/**
 * Node 22.8 and later keep the code V8 compiled for the modules loaded after this, so a restart
 * compiles little of the bundle again (0.2 s less to ready on Node 24 here). NODE_COMPILE_CACHE
 * names the directory (Node reads it itself), else the system's temporary one; Node 20 has no
 * such cache.
 */
function keepCompiledCode (): void {
  const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache
  if (process.env.NODE_COMPILE_CACHE === undefined) enable?.()
}

async function main (): Promise<void> {
  markStartUp('entry')
  keepCompiledCode()
  keepPreloadToThisProcess()
  const args = process.argv.slice(2)
  const early = await startDatabaseEarly(args)
  const { serve } = await import('./serve.js')
  await serve(args, early)
}

main().catch((err: unknown) => { fail(err, process.argv.includes('--log-level=debug') || process.argv.includes('--log-level=trace')) })
