// The real server process for end-to-end tests: bin/server.ts on a fresh database.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { freshDatabase } from './postgres.js'

type T = { after (fn: () => unknown): void }

export function runServer (args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts', '--secure-port', '0', '--log-level', 'warn', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
}

export interface RunningServer {
  kubeconfig: string
  server: string
  caPem: string
  clientCertPem: string
  clientKeyPem: string
}

/** Starts bin/server.ts and waits for its kubeconfig; stopped after the test. */
export async function startServer (t: T, dataDir: string, args: string[]): Promise<RunningServer> {
  const child = runServer(['--data-dir', dataDir, '--storage-url', await freshDatabase(t), ...args])
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
  t.after(() => new Promise<void>(resolve => { child.once('exit', () => resolve()); child.kill('SIGTERM') }))
  const kubeconfig = join(dataDir, 'admin.kubeconfig')
  const deadline = Date.now() + 60_000
  while (!existsSync(kubeconfig)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start: ${stderr}`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  const cfg = parse(readFileSync(kubeconfig, 'utf8'))
  const pem = (b64: string): string => Buffer.from(b64, 'base64').toString()
  return {
    kubeconfig,
    server: cfg.clusters[0].cluster.server,
    caPem: pem(cfg.clusters[0].cluster['certificate-authority-data']),
    clientCertPem: pem(cfg.users[0].user['client-certificate-data']),
    clientKeyPem: pem(cfg.users[0].user['client-key-data'])
  }
}
