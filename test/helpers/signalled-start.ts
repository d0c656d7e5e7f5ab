// A server start stopped by SIGTERM, for the tests of how a start ends on a signal: bounded, so
// a start that does not end fails with its log rather than at the test runner's timeout.
import { spawn } from 'node:child_process'
import { serverCommand } from './built-server.js'

/** The embedded database, not the test run's DATABASE_URL. */
export const EMBEDDED_ENV = { ...process.env, DATABASE_URL: '' }

/** Far longer than any stop takes here (under 1 s), far shorter than the file's own limit. */
export const STOP_BOUND_MS = 45_000

/** `ended`, or a failure that says why it did not end in time (`onLate` ends it and explains). */
export async function endsWithin<T> (ended: Promise<T>, ms: number, onLate: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(onLate())), ms) })
  try {
    return await Promise.race([ended, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Starts the server on `dataDir` and sends SIGTERM after `delayMs` (or once `when` holds): how it ended, and what it wrote. */
export async function signalledStart (dataDir: string, delayMs: number, when?: () => boolean): Promise<{ code: number | null, signal: NodeJS.Signals | null, stderr: string, logged: string[] }> {
  const { command, args, cwd } = serverCommand(['--data-dir', dataDir, '--secure-port', '0', '--log-level', 'debug'])
  const child = spawn(command, args, { cwd, env: EMBEDDED_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  let stdout = ''
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
  const exited = new Promise<[number | null, NodeJS.Signals | null]>(resolve => child.once('exit', (code, signal) => resolve([code, signal])))
  await new Promise(resolve => setTimeout(resolve, delayMs))
  for (let waited = 0; when !== undefined && !when() && child.exitCode === null && waited < 120_000; waited += 20) {
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  child.kill('SIGTERM')
  const [code, signal] = await endsWithin(exited, STOP_BOUND_MS, () => {
    child.kill('SIGKILL')
    return `a start signalled after ${delayMs} ms did not end within ${STOP_BOUND_MS / 1000} s; its log:\n${stdout}${stderr}`
  })
  // Logged at debug, so that a start that does not end says how far it got; what the test
  // reads is its warnings and errors (pino's levels 40 and up). The ready line is plain text.
  const logged = stdout.split('\n').filter(line => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 40)
  return { code, signal, stderr, logged }
}

