// Child-process plumbing for the orchestrator: free ports, polling, and running a TypeScript
// entry point in a process of its own.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'

export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.on('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => { if (typeof address === 'object' && address !== null) resolve(address.port); else reject(new Error('no free port')) })
    })
  })
}

export async function waitFor (check: () => Promise<boolean>, timeoutMs: number, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms`)
    await new Promise(resolve => setTimeout(resolve, intervalMs))
  }
}

/** Node flags that run a .ts file (tsx's loader), for spawning our own entry points. */
export const TS_NODE_ARGS = ['--import', 'tsx']

/** Runs `node <file> <json arg>` and parses its last stdout line as JSON. */
export function runJson<T> (file: string, arg: unknown, nodeArgs: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, ...nodeArgs, file, JSON.stringify(arg)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => { out += d.toString() })
    child.stderr.on('data', (d: Buffer) => { err += d.toString() })
    child.on('error', reject)
    child.on('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? ''
      if (code !== 0) return reject(new Error(`${file} exited with ${code}: ${err.slice(-2000)}`))
      try { resolve(JSON.parse(last) as T) } catch { reject(new Error(`${file} printed no result: ${out.slice(-500)} ${err.slice(-1000)}`)) }
    })
  })
}
