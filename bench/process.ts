// Child-process plumbing for the orchestrator: free ports, polling, and running a TypeScript
// entry point in a process of its own.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
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

/**
 * One `node` command line of a package.json script: the environment assignments before it
 * (`NAME=value node ...`, as the shell applies them to that command alone), Node's own flags,
 * then the script and its arguments.
 */
export interface NodeCommand {
  env: Record<string, string>
  nodeArgs: string[]
  args: string[]
}

/** Parses one `[NAME=value ...] node [flags] script [args]` command, as `sh` would split it (no quoting). */
export function parseNodeCommand (command: string): NodeCommand {
  const words = command.trim().split(/\s+/).filter(w => w !== '')
  if (words.some(w => /["'`$\\;|<>()]/.test(w))) throw new Error(`npm start's command needs a shell (quotes, expansions or operators): ${command}`)
  const env: Record<string, string> = {}
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) {
    const word = words.shift()!
    const eq = word.indexOf('=')
    env[word.slice(0, eq)] = word.slice(eq + 1)
  }
  const [program, ...rest] = words
  if (program !== 'node') throw new Error(`npm start runs ${program ?? 'nothing'}, not node: ${command}`)
  const script = rest.findIndex(w => !w.startsWith('-'))
  if (script < 0) throw new Error(`no script in npm start's command: ${command}`)
  return { env, nodeArgs: rest.slice(0, script), args: rest.slice(script) }
}

/**
 * The `node` commands that `npm start` runs one after the other (its `prestart`, then `start`),
 * read from package.json so the benchmark starts the server exactly as it is started in earnest.
 */
export function npmStartCommands (scripts?: Record<string, string | undefined>): NodeCommand[] {
  scripts ??= (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string | undefined> }).scripts
  return [scripts.prestart, scripts.start].flatMap(script => script === undefined ? [] : script.split('&&')).map(parseNodeCommand)
}

/** Runs one such command to its end, failing on a non-zero exit. */
export function runToEnd (command: NodeCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...command.nodeArgs, ...command.args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...command.env } })
    let err = ''
    child.stderr.on('data', (d: Buffer) => { err += d.toString() })
    child.on('error', reject)
    child.on('exit', code => code === 0 ? resolve() : reject(new Error(`${command.args.join(' ')} exited with ${code}: ${err.slice(-2000)}`)))
  })
}

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

/** A process that prints one JSON line when ready and runs until stopped (the benchmark's no-op webhook). */
export function startJsonService<T> (file: string, args: string[]): Promise<{ info: T, pid: number, stop (): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stderr.on('data', (d: Buffer) => { err += d.toString() })
    child.on('error', reject)
    child.on('exit', (code) => reject(new Error(`${file} exited with ${String(code)} before it was ready: ${err.slice(-2000)}`)))
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const newline = out.indexOf('\n')
      if (newline < 0) return
      child.removeAllListeners('exit')
      const stop = (): Promise<void> => new Promise(done => {
        if (child.exitCode !== null || child.signalCode !== null) { done(); return }
        child.once('exit', () => done())
        child.kill('SIGTERM')
      })
      try { resolve({ info: JSON.parse(out.slice(0, newline)) as T, pid: child.pid!, stop }) } catch (e) { void stop(); reject(e as Error) }
    })
  })
}
