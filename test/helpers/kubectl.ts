// kubectl as the tests run it: one installed release (or the dispatcher, which picks the
// release matching the server's /version) against a kubeconfig, with stdin, returning what it
// printed and its exit code; and kubeconfigs for users other than the admin.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'

export const KUBECTL_DIR = '/usr/lib/google-cloud-sdk/bin'

/** `version` is a release ('1.31'); without it, the dispatcher. */
export function kubectlBinary (version?: string): string {
  return join(KUBECTL_DIR, version === undefined ? 'kubectl' : `kubectl.${version}`)
}

export function hasKubectl (version?: string): boolean {
  return existsSync(kubectlBinary(version))
}

/** The minor versions of the installed `kubectl.1.N` releases, ascending. */
export function installedKubectlMinors (): number[] {
  if (!existsSync(KUBECTL_DIR)) return []
  return readdirSync(KUBECTL_DIR).map(f => /^kubectl\.1\.(\d+)$/.exec(f)?.[1])
    .filter((m): m is string => m !== undefined).map(Number).sort((a, b) => a - b)
}

/** The installed minors a matrix test runs: all, or those in KUBECTL_MATRIX=27,33 while iterating. */
export function selectedKubectlMinors (): number[] {
  const only = process.env.KUBECTL_MATRIX?.split(',').map(Number)
  const installed = installedKubectlMinors()
  return only === undefined ? installed : installed.filter(v => only.includes(v))
}

export interface KubectlResult { code: number, stdout: string, stderr: string }

/** A failed `check` (or `ok`): thrown with what kubectl printed, as execFile's rejection carries it. */
export class KubectlError extends Error implements KubectlResult {
  constructor (args: string[], readonly code: number, readonly stdout: string, readonly stderr: string) {
    super(`kubectl ${args.join(' ')} exited ${code}\n${stderr}`)
  }
}

export interface KubectlOptions {
  kubeconfig: string
  /** A release such as '1.31'; the dispatcher when left out. */
  version?: string
  /** HOME for kubectl, with its discovery cache under it: kept apart from other servers'. */
  home?: string
  /** kubectl's -v level, for looking at the requests a test makes. */
  verbosity?: number
  timeoutMs?: number
  /** More environment for kubectl (KUBE_EDITOR for `kubectl edit`). */
  env?: NodeJS.ProcessEnv
}

export interface Kubectl {
  /** Runs kubectl with `args` (and `input` on stdin); never rejects on a non-zero exit. */
  run (args: string[], input?: string): Promise<KubectlResult>
  /** Runs kubectl; rejects with a KubectlError when it exits non-zero. */
  check (args: string[], input?: string): Promise<KubectlResult>
  /** The stdout of `check`. */
  ok (args: string[], input?: string): Promise<string>
  /** Runs kubectl: whether it succeeded, and stdout (followed by stderr when it did not). */
  attempt (args: string[], input?: string): Promise<{ ok: boolean, out: string }>
  /** Starts a long-running kubectl (a watch) with piped output. */
  spawn (args: string[]): ChildProcessWithoutNullStreams
}

export function kubectlFor (opts: KubectlOptions): Kubectl {
  const bin = kubectlBinary(opts.version)
  const argv = (args: string[]): string[] => ['--kubeconfig', opts.kubeconfig, ...(opts.verbosity === undefined ? [] : [`-v=${opts.verbosity}`]), ...args]
  const env = { ...process.env, ...opts.env, KUBECONFIG: opts.kubeconfig, ...(opts.home === undefined ? {} : { HOME: opts.home, KUBECACHEDIR: join(opts.home, 'cache') }) }
  const run = (args: string[], input?: string): Promise<KubectlResult> => new Promise((resolve) => {
    const child = execFile(bin, argv(args), { env, timeout: opts.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1
      resolve({ code, stdout, stderr })
    })
    child.stdin!.end(input)
  })
  const check = async (args: string[], input?: string): Promise<KubectlResult> => {
    const r = await run(args, input)
    if (r.code !== 0) throw new KubectlError(args, r.code, r.stdout, r.stderr)
    return r
  }
  return {
    run,
    check,
    ok: async (args, input) => (await check(args, input)).stdout,
    async attempt (args, input) {
      const r = await run(args, input)
      return { ok: r.code === 0, out: r.code === 0 ? r.stdout : `${r.stdout}${r.stderr}` }
    },
    spawn: args => spawn(bin, argv(args), { env })
  }
}

/** Credentials of a kubeconfig user other than a client certificate (for which auth/pki writes one). */
export type KubeconfigUser = { token: string } | { exec: object } | Record<string, never>

/** Writes a kubeconfig for `server`, trusting `caPem`, as user `name` with `user`'s credentials. */
export function writeUserKubeconfig (path: string, opts: { server: string, caPem: string, name: string, user: KubeconfigUser }): string {
  writeFileSync(path, stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'svc', cluster: { server: opts.server, 'certificate-authority-data': Buffer.from(opts.caPem).toString('base64') } }],
    users: [{ name: opts.name, user: opts.user }],
    contexts: [{ name: opts.name, context: { cluster: 'svc', user: opts.name } }],
    'current-context': opts.name
  }), { mode: 0o600 })
  return path
}
