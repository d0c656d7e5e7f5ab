// `kubectl create token`: kubectl posts a TokenRequest named in the upstream group
// (authentication.k8s.io/v1) to serviceaccounts/token, in protobuf from 1.32 and in JSON before
// with its unset fields as nulls, and decodes the answer only in that group.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { hasKubectl, kubectlFor, writeUserKubeconfig } from '../helpers/kubectl.js'
import { startServer, type RunningServer } from '../helpers/server.js'

const VERSIONS = ['1.33', '1.27'].filter(v => hasKubectl(v))

describe('kubectl create token', { skip: VERSIONS.length === 0 ? 'no kubectl 1.33 or 1.27 installed' : false }, () => {
  let server: RunningServer
  const cleanups: Array<() => unknown> = []
  before(async () => { server = await startServer({ after: fn => { cleanups.push(fn) } }) })
  after(async () => { for (const fn of cleanups) await fn() })

  for (const v of VERSIONS) {
    it(`kubectl ${v} gets a token for the default service account that the server then accepts`, async () => {
      const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: v })
      // The account comes from its controller a moment after the namespace exists.
      let token = ''
      for (let i = 0; i < 50 && token === ''; i++) {
        const r = await kubectl.run(['create', 'token', 'default', '--duration=10m'])
        if (r.code === 0) token = r.stdout.trim()
        else if (!/not found/.test(r.stderr)) assert.fail(r.stderr)
        else await new Promise(resolve => setTimeout(resolve, 200))
      }
      assert.match(token, /^ey[\w-]+\.[\w-]+\.[\w-]+$/)
      // The token is the account's: a request bearing only it is the account's.
      const asAccount = writeUserKubeconfig(join(server.dataDir, `sa-${v}.kubeconfig`), { server: server.server, caPem: server.caPem, name: 'default-sa', user: { token } })
      const review = await kubectlFor({ kubeconfig: asAccount, version: v }).ok(['create', '--raw', '/apis/authentication.svc.io/v1/selfsubjectreviews', '-f', '-'], JSON.stringify({ apiVersion: 'authentication.svc.io/v1', kind: 'SelfSubjectReview' }))
      assert.equal(JSON.parse(review).status.userInfo.username, 'system:serviceaccount:default:default')
    })
  }
})
