// The create ceiling on etcd: Debian's etcd-server, started on a directory beside the
// benchmark's PostgreSQL data (same disk), on loopback ports, driven through its HTTP/JSON
// gateway by the same load generator.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, waitFor } from '../process.js'

export interface Etcd { origin: string, version: string, pid: number, stop (): Promise<void> }

/** Starts etcd, or returns why it cannot (not installed, failed to start). */
export async function startEtcd (workDir: string): Promise<Etcd | string> {
  const probe = spawnSync('etcd', ['--version'], { encoding: 'utf8' })
  if (probe.error !== undefined || probe.status !== 0) {
    return 'etcd is not installed (apt-get install -y etcd-server)'
  }
  const version = /etcd Version: (\S+)/.exec(probe.stdout)?.[1] ?? 'unknown'
  const dir = join(workDir, 'etcd')
  mkdirSync(dir, { recursive: true })
  const client = await freePort()
  const peer = await freePort()
  const origin = `http://127.0.0.1:${client}`
  const child: ChildProcess = spawn('etcd', [
    '--name', 'bench', '--data-dir', dir,
    '--listen-client-urls', origin, '--advertise-client-urls', origin,
    '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
    '--initial-cluster', `bench=http://127.0.0.1:${peer}`, '--log-level', 'error',
    '--quota-backend-bytes', String(8 * 1024 ** 3)
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000) })
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return
    child.kill('SIGTERM')
    await new Promise(resolve => child.once('exit', resolve))
  }
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`etcd exited: ${stderr}`)
      const res = await fetch(`${origin}/health`).catch(() => undefined)
      return res?.ok === true
    }, 15_000)
  } catch (err) {
    await stop()
    return `etcd did not start: ${(err as Error).message}`
  }
  return { origin, version, pid: child.pid!, stop }
}
