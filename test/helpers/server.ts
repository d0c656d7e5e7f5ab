// The real server process for end-to-end tests: bin/server.ts on a temp data dir.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { freshDatabase } from './postgres.js'

export interface RunningServer {
  dataDir: string
  kubeconfig: string
  url: string
  process: ChildProcess
  stop (): Promise<void>
}

export async function startServer (t: { after (fn: () => unknown): void }, args: string[] = []): Promise<RunningServer> {
  const cleanups: Array<() => unknown> = []
  t.after(async () => { for (const fn of cleanups.reverse()) await fn() })
  const databaseUrl = await freshDatabase({ after: (fn) => { cleanups.push(fn) } })
  const dataDir = mkdtempSync(join(tmpdir(), 'apiserver-e2e-'))
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts', '--data-dir', dataDir, '--secure-port', '0', '--storage-url', databaseUrl, '--log-level', 'warn', ...args],
    { cwd: new URL('../..', import.meta.url).pathname, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return
    const exited = new Promise(resolve => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  cleanups.push(stop)
  const kubeconfig = join(dataDir, 'admin.kubeconfig')
  const deadline = Date.now() + 30_000
  while (!existsSync(kubeconfig)) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`)
    if (Date.now() > deadline) throw new Error(`server did not start: ${stderr}`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  const url = (parse(readFileSync(kubeconfig, 'utf8')) as { clusters: Array<{ cluster: { server: string } }> }).clusters[0]!.cluster.server
  return { dataDir, kubeconfig, url, process: child, stop }
}
