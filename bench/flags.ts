// The benchmark's flags: every workload's duration and concurrency, with defaults that finish
// the suite in about thirteen minutes on two cores.

export const WORKLOADS = ['create', 'custom', 'webhook', 'policy', 'get', 'list', 'paged', 'big-lists', 'watch', 'watch-spread', 'update', 'apply', 'hostile', 'fairness', 'memory', 'owned', 'rest', 'startup'] as const
export type Workload = typeof WORKLOADS[number]

export interface BenchFlags {
  only: Workload[]
  /** create and get, each with its ceilings, measured this many times alternately; the table shows the median ratio. */
  rounds: number
  payloadBytes: number
  /** Seconds of unmeasured load before each throughput figure and ceiling. */
  warmup: number
  createDuration: number
  createConcurrency: number
  getDuration: number
  getConcurrency: number
  listItems: number
  listIterations: number
  /** ConfigMaps of the paged workload (a paged walk, namespace lists of ~1,000, a 1% selector, the unpaged list). */
  pagedObjects: number
  /** The big-lists workload: unpaged lists of the paged workload's ConfigMaps this many at once, and timed rounds. */
  bigListConcurrency: number
  bigListRounds: number
  watchers: number
  watchRate: number
  watchDuration: number
  /** The watch-spread workload: this many watchers over this many namespaces, writes spread alike. */
  spreadWatchers: number
  spreadNamespaces: number
  updateDuration: number
  updateConcurrency: number
  hotDuration: number
  hotConcurrency: number
  applyDuration: number
  applyConcurrency: number
  memoryObjects: number
  /** ConfigMaps (in 100 namespaces) of the rest and startup workloads' own server. */
  objects: number
  /** Times each hostile input and its benign twin are sent; the least of each kind's slowest /readyz answers counts. */
  hostileRounds: number
  /** The fairness workload: seconds of trickle unloaded, then under the flood; the flood's clients. */
  fairnessDuration: number
  fairnessConcurrency: number
  /** Write the server's CPU profile (node --cpu-prof) into bench/results/. */
  cpuProf: boolean
  /** A PostgreSQL server to create the benchmark's database on; default: embedded. */
  databaseUrl?: string
  /** Keep the temporary directory (data, etcd) for inspection. */
  keep: boolean
  /** More Node flags for the server process (diagnostics: --inspect, heap or GC flags). */
  serverNodeArgs: string[]
}

export const DEFAULTS: BenchFlags = {
  only: [...WORKLOADS],
  rounds: 1,
  payloadBytes: 1024,
  warmup: 3,
  createDuration: 20,
  createConcurrency: 64,
  getDuration: 10,
  getConcurrency: 64,
  listItems: 10_000,
  listIterations: 20,
  pagedObjects: 20_000,
  bigListConcurrency: 10,
  bigListRounds: 3,
  watchers: 1000,
  watchRate: 200,
  watchDuration: 20,
  spreadWatchers: 500,
  spreadNamespaces: 100,
  updateDuration: 10,
  updateConcurrency: 64,
  hotDuration: 10,
  hotConcurrency: 16,
  applyDuration: 10,
  applyConcurrency: 64,
  memoryObjects: 100_000,
  objects: 20_000,
  hostileRounds: 3,
  fairnessDuration: 10,
  fairnessConcurrency: 48,
  cpuProf: false,
  keep: false,
  serverNodeArgs: []
}

const HELP = `usage: npm run bench -- [flags]
  --only create,webhook,policy,get,list,paged,big-lists,watch,watch-spread,update,apply,hostile,fairness,memory,owned,rest,startup   workloads to run (default: all; owned: half as many
                             ConfigMaps again as --memory-objects, each with an owner reference, on top of memory's; rest and startup
                             run a server and database of their own, filled with --objects ConfigMaps)
  --rounds N                 measure create and get with their ceilings N times, alternating; the median ratio goes in the table (${DEFAULTS.rounds});
                             each create round leaves its objects, so memory then runs on more than --memory-objects
  --payload-bytes N          ConfigMap size (${DEFAULTS.payloadBytes})
  --warmup S                 unmeasured load before each throughput figure and its ceiling (${DEFAULTS.warmup} s)
  --create-duration S        --create-concurrency N   (${DEFAULTS.createDuration} s, ${DEFAULTS.createConcurrency}; the etcd and PostgreSQL ceilings use the same)
  --get-duration S           --get-concurrency N      (${DEFAULTS.getDuration} s, ${DEFAULTS.getConcurrency}; the bare Fastify ceiling too)
  --list-items N             --list-iterations N      (${DEFAULTS.listItems}, ${DEFAULTS.listIterations})
  --paged-objects N          ConfigMaps (in namespaces of 1,000) for the paged walk, namespace, selector and unpaged lists,
                             each beside JSON.stringify of the same items, and the namespace list in protobuf and as a Table beside
                             its JSON list (${DEFAULTS.pagedObjects}; the issue's figure: 100000)
  --big-list-concurrency N   --big-list-rounds N  unpaged lists of the --paged-objects ConfigMaps (JSON, protobuf) this many at
                             once, the server's peak RSS beside the live JSON; and one at a time, beside JSON.stringify (${DEFAULTS.bigListConcurrency}, ${DEFAULTS.bigListRounds})
  --watchers N  --watch-rate W/s  --watch-duration S  (${DEFAULTS.watchers}, ${DEFAULTS.watchRate}, ${DEFAULTS.watchDuration} s; every watcher on the written namespace)
  --spread-watchers N        --spread-namespaces N    watch-spread: the watchers and the writes spread over namespaces (${DEFAULTS.spreadWatchers}, ${DEFAULTS.spreadNamespaces})
  --update-duration S        --update-concurrency N   (${DEFAULTS.updateDuration} s, ${DEFAULTS.updateConcurrency})
  --hot-duration S           --hot-concurrency N      (${DEFAULTS.hotDuration} s, ${DEFAULTS.hotConcurrency})
  --apply-duration S         --apply-concurrency N    (${DEFAULTS.applyDuration} s, ${DEFAULTS.applyConcurrency}; creates of the same run are its ceiling)
  --memory-objects N         ConfigMaps cached before RSS is read (${DEFAULTS.memoryObjects})
  --objects N                ConfigMaps in 100 namespaces for rest (RSS at rest beside the live JSON) and startup (a restart to
                             /readyz beside starting PostgreSQL and reading the same rows) (${DEFAULTS.objects}; the issue's figure: 100000)
  --hostile-rounds N         each hostile input and its benign twin sent N times, with /readyz probed (${DEFAULTS.hostileRounds})
  --fairness-duration S      --fairness-concurrency N (${DEFAULTS.fairnessDuration} s, ${DEFAULTS.fairnessConcurrency}; one user's gets alone, then beside
                             another user's lists and creates from N clients, each user in a priority level of its own)
  --cpu-prof                 write the server's CPU profile to bench/results/
  --database-url URL         create the benchmark database there (default: $DATABASE_URL, else embedded PostgreSQL)
  --keep                     keep the temporary directory
  --server-node-args "A B"   more Node flags for the server process, say "--inspect=127.0.0.1:9229"`

const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

export function parseBenchFlags (argv: string[], env: NodeJS.ProcessEnv): BenchFlags {
  const flags: BenchFlags = { ...DEFAULTS, databaseUrl: env.DATABASE_URL === '' ? undefined : env.DATABASE_URL }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(HELP + '\n')
      process.exit(0)
    }
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"\n${HELP}`)
    let [name, value] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]
    const key = camel(name) as keyof BenchFlags
    if (!(key in DEFAULTS) && key !== 'databaseUrl') throw new Error(`unknown flag --${name}\n${HELP}`)
    if (typeof DEFAULTS[key] === 'boolean') {
      (flags as unknown as Record<string, unknown>)[key] = value === undefined || value === 'true'
      continue
    }
    value ??= argv[++i]
    if (value === undefined) throw new Error(`flag --${name} needs a value`)
    if (key === 'only') {
      const names = value.split(',').map(s => s.trim()).filter(s => s !== '')
      for (const n of names) if (!WORKLOADS.includes(n as Workload)) throw new Error(`unknown workload "${n}"; known: ${WORKLOADS.join(', ')}`)
      flags.only = names as Workload[]
    } else if (key === 'databaseUrl') {
      flags.databaseUrl = value
    } else if (key === 'serverNodeArgs') {
      flags.serverNodeArgs = value.split(' ').filter(a => a !== '')
    } else {
      const n = Number(value)
      if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number, not "${value}"`)
      if (key === 'rounds' && !Number.isInteger(n)) throw new Error(`--rounds needs a whole number, not "${value}"`)
      ;(flags as unknown as Record<string, unknown>)[key] = n
    }
  }
  return flags
}
