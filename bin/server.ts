// The server process: certificates, database (embedded unless a URL is given), listen, and a
// graceful stop on SIGTERM/SIGINT.
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { relative } from 'node:path'
import { EmbeddedPostgresError, startEmbeddedPostgres } from '../storage/embedded.js'
import { parseFlags } from './flags.js'
import { appOptions, verbose } from './app-options.js'
import { startIdleCollect } from './idle-collect.js'
import { loadPolicy, type Policy } from '../plugins/audit/policy.js'

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

async function main (): Promise<void> {
  keepPreloadToThisProcess()
  const args = process.argv.slice(2)
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write((await import('./help.js')).usage())
    process.exit(0)
  }
  let flags
  try {
    flags = parseFlags(args)
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`)
    process.exit(2)
  }
  const debug = verbose(flags)
  // Read before anything starts: a refused policy is then one line, not the database's
  // connections logged as they are cut under an app that failed half-built.
  let auditPolicy: Policy | undefined
  if (flags.auditPolicyFile !== undefined) {
    try {
      auditPolicy = loadPolicy(flags.auditPolicyFile)
    } catch (err) {
      fail(err, debug)
    }
  }
  const dataDir = resolve(flags.dataDir)
  try {
    mkdirSync(dataDir, { recursive: true })
  } catch (err) {
    fail(new Error(`could not create the data directory ${dataDir}: ${(err as Error).message}`), debug)
  }
  // Start-up time: the app's modules load (and compile) and the certificates load while the
  // embedded PostgreSQL starts, rather than one after the other.
  const loadingApp = import('../server/app.js')
  loadingApp.catch(() => {})
  const loadingPki = import('../auth/pki.js').then(async (m) => ({ ...m, pki: await m.ensureCertificates(dataDir, { bindAddress: flags.bindAddress, certDir: flags.certDir, hosts: [flags.advertiseAddress, flags.externalHostname].filter((h): h is string => h !== undefined) }) }))
  loadingPki.catch(() => {})

  let embedded: { url: string, stop(): Promise<void> } | undefined
  let databaseUrl = flags.storageUrl
  if (databaseUrl === undefined || databaseUrl === '') {
    try {
      embedded = await startEmbeddedPostgres(dataDir)
    } catch (err) {
      fail(err, debug)
    }
    databaseUrl = embedded.url
  }
  let pki: Awaited<typeof loadingPki>['pki']
  let writeKubeconfig: Awaited<typeof loadingPki>['writeKubeconfig']
  let buildApp: Awaited<typeof loadingApp>['buildApp']
  try {
    [{ pki, writeKubeconfig }, { buildApp }] = await Promise.all([loadingPki, loadingApp])
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`)
    await embedded?.stop()
    process.exit(1)
  }

  let app
  try {
    app = await buildApp(appOptions(flags, { databaseUrl, pki, auditPolicy }))
    await app.listen({ port: flags.securePort, host: flags.bindAddress })
    // The kubeconfig says the server is ready: not before its post-start hooks are done.
    await app.health.postStartHooksFinished()
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`)
    await embedded?.stop()
    process.exit(1)
  }
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
}

/**
 * Ends a start that cannot go on: one or two sentences (what failed, why, what to do), with
 * the stack and the embedded PostgreSQL's log only at debug level.
 */
function fail (err: unknown, debug: boolean): never {
  const message = err instanceof Error ? err.message : String(err)
  process.stderr.write(`error: ${message}\n`)
  if (debug) {
    if (err instanceof EmbeddedPostgresError && err.log !== '') process.stderr.write(`PostgreSQL's log:\n${err.log}\n`)
    if (err instanceof Error && err.stack !== undefined) process.stderr.write(`${err.stack}\n`)
  }
  process.exit(1)
}

main().catch((err: unknown) => { fail(err, process.argv.includes('--log-level=debug') || process.argv.includes('--log-level=trace')) })
