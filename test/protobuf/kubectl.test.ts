// End to end: the real server process driven by the kubectl versions that send protobuf bodies.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { parse as parseYaml } from 'yaml'
import { hasKubectl, kubectlFor, type Kubectl } from '../helpers/kubectl.js'
import { startServer } from '../helpers/server.js'

const VERSIONS = ['1.33', '1.32'].filter(v => hasKubectl(v))

describe('kubectl protobuf requests', { skip: VERSIONS.length === 0 ? 'no kubectl 1.32/1.33 installed' : false }, () => {
  const clients = new Map<string, Kubectl>()
  const cleanups: Array<() => unknown> = []

  before(async () => {
    const server = await startServer({ after: fn => { cleanups.push(fn) } })
    for (const v of VERSIONS) clients.set(v, kubectlFor({ kubeconfig: server.kubeconfig, version: v }))
  })
  after(async () => { for (const fn of cleanups) await fn() })

  for (const v of VERSIONS) {
    const suffix = v.replace('.', '-')

    it(`kubectl ${v} creates a configmap with a protobuf body and reads the protobuf answer`, async () => {
      const res = await clients.get(v)!.run(['create', 'configmap', `cm-${suffix}`, '--from-literal=a=b', '-v=8'])
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stdout, new RegExp(`configmap/cm-${suffix} created`))
      // Both the request body and the answer were protobuf.
      assert.ok((res.stderr.match(/Content-Type: application\/vnd\.kubernetes\.protobuf/g) ?? []).length >= 2, res.stderr)
      const got = await clients.get(v)!.run(['get', 'cm', `cm-${suffix}`, '-o', 'yaml'])
      assert.equal(got.code, 0, got.stderr)
      const obj = parseYaml(got.stdout)
      assert.deepEqual(obj.data, { a: 'b' })
      assert.equal(obj.metadata.namespace, 'default')
    })

    it(`kubectl ${v} reads a protobuf AlreadyExists Status`, async () => {
      const res = await clients.get(v)!.run(['create', 'configmap', `cm-${suffix}`, '--from-literal=a=b'])
      assert.notEqual(res.code, 0)
      assert.match(res.stderr, new RegExp(`configmaps "cm-${suffix}" already exists`))
    })

    it(`kubectl ${v} creates a generic secret`, async () => {
      const res = await clients.get(v)!.run(['create', 'secret', 'generic', `s-${suffix}`, '--from-literal=pw=secret'])
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stdout, new RegExp(`secret/s-${suffix} created`))
      const got = await clients.get(v)!.run(['get', 'secret', `s-${suffix}`, '-o', 'jsonpath={.type} {.data.pw}'])
      assert.equal(got.stdout, `Opaque ${Buffer.from('secret').toString('base64')}`)
    })

    it(`kubectl ${v} creates a namespace`, async () => {
      const res = await clients.get(v)!.run(['create', 'namespace', `ns-${suffix}`])
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stdout, new RegExp(`namespace/ns-${suffix} created`))
      const got = await clients.get(v)!.run(['get', 'ns', `ns-${suffix}`, '-o', 'jsonpath={.status.phase}'])
      assert.equal(got.stdout, 'Active')
    })

    it(`kubectl ${v} deletes the configmap`, async () => {
      const res = await clients.get(v)!.run(['delete', 'cm', `cm-${suffix}`])
      assert.equal(res.code, 0, res.stderr)
      assert.match(res.stdout, new RegExp(`configmap "cm-${suffix}" deleted`))
      const gone = await clients.get(v)!.run(['get', 'cm', `cm-${suffix}`])
      assert.notEqual(gone.code, 0)
      assert.match(gone.stderr, /NotFound/)
    })
  }
})
