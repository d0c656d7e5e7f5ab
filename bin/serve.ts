// The server process after its entry (bin/server.ts): every flag, certificates, the database
// (embedded unless a URL is given; started by the entry where it could be), listen, and a
// graceful stop on SIGTERM/SIGINT.
import { mkdirSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../storage/embedded.js'
import { parseFlags } from './flags.js'
import { appOptions, verbose } from './app-options.js'
import { fail } from './fail.js'
import { startFailedExit, stopOnSignal } from './stop-on-signal.js'
import { startIdleCollect } from './idle-collect.js'
import { loadPolicy, type Policy } from '../plugins/audit/policy.js'
import { markStartUp, takeStartUpTimeline } from '../resources/start-up-timeline.js'

/** The embedded PostgreSQL the entry started on `dataDir` (absolute) before this module loaded. */
export interface EarlyDatabase {
  dataDir: string
  started: Promise<EmbeddedPostgresHandle>
  /** Ends the entry's own stop on a signal (this module takes over). */
  release (): void
}


/** Stops a database started early that this start will not use (a refused command line). */
async function stopEarly (early: EarlyDatabase | undefined): Promise<void> {
  await early?.started.then(db => db.stop(), () => {})
}

export async function serve (args: string[], early?: EarlyDatabase): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write((await import('./help.js')).usage())
    process.exit(0)
  }
  let flags
  try {
    flags = parseFlags(args)
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`)
    await stopEarly(early)
    process.exit(2)
  }
  const debug = verbose(flags)
  // Read before the app is built: a refused policy is then one line, not the database's
  // connections logged as they are cut under an app that failed half-built.
  let auditPolicy: Policy | undefined
  if (flags.auditPolicyFile !== undefined) {
    try {
      auditPolicy = loadPolicy(flags.auditPolicyFile)
    } catch (err) {
      await stopEarly(early)
      fail(err, debug)
    }
  }
  const dataDir = resolve(flags.dataDir)
  try {
    mkdirSync(dataDir, { recursive: true })
  } catch (err) {
    await stopEarly(early)
    fail(new Error(`could not create the data directory ${dataDir}: ${(err as Error).message}`), debug)
  }
  // Start-up time: the app's modules load (and compile) and the certificates load while the
  // embedded PostgreSQL starts, rather than one after the other.
  const loadingApp = import('../server/app.js')
  loadingApp.catch(() => {})
  const loadingPki = import('../auth/pki.js').then(async (m) => ({ ...m, pki: await m.ensureCertificates(dataDir, { bindAddress: flags.bindAddress, certDir: flags.certDir, hosts: [flags.advertiseAddress, flags.externalHostname].filter((h): h is string => h !== undefined) }) }))
  loadingPki.catch(() => {})

  let embedded: EmbeddedPostgresHandle | undefined
  let databaseUrl = flags.storageUrl
  // The entry read the storage flags alone; the whole line could only say otherwise if a flag's
  // value were itself `--data-dir`, but then the database it started is not this one.
  const reuse = (databaseUrl === undefined || databaseUrl === '') && early?.dataDir === dataDir
  if (!reuse) {
    await stopEarly(early)
    early?.release()
  }
  let starting: { release (): void } | undefined
  if (databaseUrl === undefined || databaseUrl === '') {
    const stopStarting = new AbortController()
    const database = reuse ? early!.started : startEmbeddedPostgres(dataDir, { signal: stopStarting.signal })
    database.catch(() => {})
    // From here a signal stops this database before the process ends (a first start's initdb
    // and start take seconds); the entry's handler does so for the database it started.
    if (!reuse) starting = stopOnSignal(database, stopStarting)
    try {
      embedded = await database
    } catch (err) {
      startFailedExit(1, () => fail(err, debug))
    }
    markStartUp('postgres-ready')
    databaseUrl = embedded.url
  }
  if (reuse) {
    // The new handler before the old one goes: a signal's listeners never drop to none, when Node
    // would close its signal handle, and a signal already received but not yet dispatched would
    // be lost with it (the start then ran on as if never signalled).
    starting = stopOnSignal(Promise.resolve(embedded!))
    early?.release()
  }
  let pki: Awaited<typeof loadingPki>['pki']
  let writeKubeconfig: Awaited<typeof loadingPki>['writeKubeconfig']
  let buildApp: Awaited<typeof loadingApp>['buildApp']
  try {
    [{ pki, writeKubeconfig }, { buildApp }] = await Promise.all([loadingPki, loadingApp])
  } catch (err) {
    await embedded?.stop()
    startFailedExit(1, () => { process.stderr.write(`error: ${(err as Error).message}\n`) })
  }

  markStartUp('modules-loaded')
  let app
  try {
    app = await buildApp(appOptions(flags, { databaseUrl, pki, auditPolicy }))
    markStartUp('app-built')
    await app.listen({ port: flags.securePort, host: flags.bindAddress })
    markStartUp('listening')
    // The kubeconfig says the server is ready: not before its post-start hooks are done.
    await app.health.postStartHooksFinished()
    markStartUp('hooks-done')
  } catch (err) {
    await embedded?.stop()
    startFailedExit(1, () => { process.stderr.write(`error: ${(err as Error).message}\n`) })
  }
  app.log.debug({ marks: takeStartUpTimeline() }, 'start-up timeline')
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : flags.securePort
  // The address written for clients: never a wildcard bind, which names no host to dial.
  const host = flags.externalHostname ?? flags.advertiseAddress ?? (flags.bindAddress === '0.0.0.0' || flags.bindAddress === '::' ? '127.0.0.1' : flags.bindAddress)
  writeKubeconfig(pki.paths.kubeconfig, {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    caCertPem: pki.caCertPem,
    clientCertPem: pki.adminCertPem,
    clientKeyPem: pki.adminKeyPem
  })
  // For the person at the terminal: where it listens, and the command to try.
  const kubeconfig = relative(process.cwd(), pki.paths.kubeconfig).startsWith('..') ? pki.paths.kubeconfig : relative(process.cwd(), pki.paths.kubeconfig)
  process.stdout.write(`svc-apiserver is ready on https://${host.includes(':') ? `[${host}]` : host}:${port}; try: kubectl --kubeconfig ${kubeconfig} get namespaces\n`)
  const stopIdleCollect = startIdleCollect({
    onCollect: (before, after, ms) => app.log.debug({ before, after, ms: Math.round(ms) }, 'collected garbage while idle')
  })

  let stopping = false
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down')
    app.health.beginShutdown()
    stopIdleCollect()
    if (flags.shutdownDelayMs > 0) await new Promise(resolve => setTimeout(resolve, flags.shutdownDelayMs))
    await app.close()
    await embedded?.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => { void stop('SIGTERM') })
  process.on('SIGINT', () => { void stop('SIGINT') })
  // Only now, as above: the graceful stop's listeners are in place before the start's go.
  starting?.release()
}
