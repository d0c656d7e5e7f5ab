// End to end: the real server process driven by the kubectl versions that send protobuf bodies.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { freshDatabase } from '../helpers/postgres.js'

const KUBECTL_DIR = '/usr/lib/google-cloud-sdk/bin'
const VERSIONS = ['1.33', '1.32'].filter(v => existsSync(join(KUBECTL_DIR, `kubectl.${v}`)))
const ROOT = new URL('../../', import.meta.url).pathname

interface Run { code: number, stdout: string, stderr: string }

function kubectl (version: string, kubeconfig: string, args: string[]): Promise<Run> {
  return new Promise(resolve => {
    execFile(join(KUBECTL_DIR, `kubectl.${version}`), ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : (typeof err.code === 'number' ? err.code : 1), stdout, stderr })
    })
  })
}

/** Starts bin/server.ts and resolves once it has written its kubeconfig and said it is ready. */
function startServer (dataDir: string, databaseUrl: string): Promise<ChildProcess> {
  const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'bin/server.ts'), '--data-dir', dataDir, '--secure-port', '0',
    '--bind-address', '127.0.0.1', '--storage-url', databaseUrl], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000)
    const onData = (chunk: Buffer): void => {
      out += chunk.toString()
      if (/is ready on https:\/\/\S+; try: kubectl --kubeconfig \S+ get namespaces/.test(out)) { clearTimeout(timer); resolve(child) }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', code => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${out}`)) })
  })
}

describe('kubectl protobuf requests', { skip: VERSIONS.length === 0 ? 'no kubectl 1.32/1.33 installed' : false }, () => {
  let server: ChildProcess | undefined
  let dataDir: string
  let kubeconfig: string
  const cleanups: Array<() => unknown> = []

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'apiserver-kubectl-pb-'))
    kubeconfig = join(dataDir, 'admin.kubeconfig')
    const databaseUrl = await freshDatabase({ after: fn => { cleanups.push(fn) } })
    server = await startServer(dataDir, databaseUrl)
  })

  after(async () => {
    if (server !== undefined && server.exitCode === null) {
      const exited = new Promise(resolve => server!.once('exit', resolve))
      server.kill('SIGTERM')
      await exited
    }
    for (const fn of cleanups) await fn()
    rmSync(dataDir, { recursive: true, force: true })
  })

  for (const v of VERSIONS) {
    const suffix = v.replace('.', '-')

    it(`kubectl ${v} creates a configmap with a protobuf body and reads the protobuf answer`, async () => {
      const res = await kubectl(v, kubeconfig, ['create', 'configmap', `cm-${suffix}`, '--from-literal=a=b', '-v=8'])
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stdout, new RegExp(`configmap/cm-${suffix} created`))
      // Both the request body and the answer were protobuf.
      assert.ok((res.stderr.match(/Content-Type: application\/vnd\.kubernetes\.protobuf/g) ?? []).length >= 2, res.stderr)
      const got = await kubectl(v, kubeconfig, ['get', 'cm', `cm-${suffix}`, '-o', 'yaml'])
      assert.equal(got.code, 0, got.stderr)
      const obj = parseYaml(got.stdout)
      assert.deepEqual(obj.data, { a: 'b' })
      assert.equal(obj.metadata.namespace, 'default')
    })

    it(`kubectl ${v} reads a protobuf AlreadyExists Status`, async () => {
      const res = await kubectl(v, kubeconfig, ['create', 'configmap', `cm-${suffix}`, '--from-literal=a=b'])
      assert.notEqual(res.code, 0)
      assert.match(res.stderr, new RegExp(`configmaps "cm-${suffix}" already exists`))
    })

    it(`kubectl ${v} creates a generic secret`, async () => {
      const res = await kubectl(v, kubeconfig, ['create', 'secret', 'generic', `s-${suffix}`, '--from-literal=pw=secret'])
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stdout, new RegExp(`secret/s-${suffix} created`))
      const got = await kubectl(v, kubeconfig, ['get', 'secret', `s-${suffix}`, '-o', 'jsonpath={.type} {.data.pw}'])
      assert.equal(got.stdout, `Opaque ${Buffer.from('secret').toString('base64')}`)
    })

    it(`kubectl ${v} creates a namespace`, async () => {
      const res = await kubectl(v, kubeconfig, ['create', 'namespace', `ns-${suffix}`])
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stdout, new RegExp(`namespace/ns-${suffix} created`))
      const got = await kubectl(v, kubeconfig, ['get', 'ns', `ns-${suffix}`, '-o', 'jsonpath={.status.phase}'])
      assert.equal(got.stdout, 'Active')
    })

    it(`kubectl ${v} deletes the configmap`, async () => {
      const res = await kubectl(v, kubeconfig, ['delete', 'cm', `cm-${suffix}`])
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stdout, new RegExp(`configmap "cm-${suffix}" deleted`))
      const gone = await kubectl(v, kubeconfig, ['get', 'cm', `cm-${suffix}`])
      assert.notEqual(gone.code, 0)
      assert.match(gone.stderr, /NotFound/)
    })
  }
})
