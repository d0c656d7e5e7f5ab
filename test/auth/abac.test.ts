// ABAC mode: the reference server's one-policy-per-line file.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { ABAC_API_VERSION } from '../../resources/naming.js'
import { parsePolicyFile } from '../../auth/authorizers/abac.js'

const policy = (spec: object): string => JSON.stringify({ apiVersion: ABAC_API_VERSION, kind: 'Policy', spec })

describe('ABAC mode', () => {
  let t: TestApp
  const cleanups: Array<() => unknown> = []
  before(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'abac-')), 'policy.jsonl')
    writeFileSync(file, [
      '# comments and blank lines are skipped',
      policy({ group: 'system:masters', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' }),
      '',
      policy({ user: 'alice', namespace: 'default', resource: 'configmaps', apiGroup: '' }),
      policy({ user: 'bob', namespace: '*', resource: '*', apiGroup: '*', readonly: true }),
      policy({ group: 'system:authenticated', nonResourcePath: '/version', readonly: true }),
      policy({ user: '*', nonResourcePath: '/healthz/*', readonly: true })
    ].join('\n'))
    t = await buildTestApp({ after: (fn) => { cleanups.push(fn) } }, { authorizationModes: ['ABAC'], authorizationPolicyFile: file })
  })
  after(async () => { for (const fn of cleanups.reverse()) await fn() })

  const cases: Array<{ name: string, as: 'admin' | 'alice' | 'bob', method: string, url: string, want: number }> = [
    { name: 'a group policy with wildcards allows everything', as: 'admin', method: 'GET', url: '/api/v1/namespaces', want: 200 },
    { name: 'a user policy allows its resource in its namespace', as: 'alice', method: 'GET', url: '/api/v1/namespaces/default/configmaps', want: 200 },
    { name: 'and writes to it (not readonly)', as: 'alice', method: 'POST', url: '/api/v1/namespaces/default/configmaps', want: 201 },
    { name: 'but not another resource', as: 'alice', method: 'GET', url: '/api/v1/namespaces/default/secrets', want: 403 },
    { name: 'nor another namespace', as: 'alice', method: 'GET', url: '/api/v1/namespaces/kube/configmaps', want: 403 },
    { name: 'a readonly policy allows reads', as: 'bob', method: 'GET', url: '/api/v1/namespaces/default/secrets', want: 200 },
    { name: 'a readonly policy refuses writes', as: 'bob', method: 'POST', url: '/api/v1/namespaces/default/secrets', want: 403 },
    { name: 'a non-resource path', as: 'alice', method: 'GET', url: '/version', want: 200 },
    { name: 'a non-resource path with a trailing *', as: 'bob', method: 'GET', url: '/healthz/ping', want: 200 },
    { name: 'a path no policy names', as: 'alice', method: 'GET', url: '/apis', want: 403 }
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const payload = c.method === 'POST' ? { metadata: { generateName: 'x-' } } : undefined
      const res = await t.request({ method: c.method as 'GET', url: c.url, as: c.as, payload })
      assert.equal(res.statusCode, c.want, res.body)
      if (c.want === 403) assert.match(res.json().message, /No policy matched\.$/)
    })
  }

  it('refuses a malformed policy file, naming the line', () => {
    assert.throws(() => parsePolicyFile(`${policy({ user: 'a' })}\n{"apiVersion": "x", "kind": "Policy", "spec": {}}`, 'p.jsonl'), /p.jsonl line 2: unknown apiVersion "x"/)
    assert.throws(() => parsePolicyFile('{not json', 'p.jsonl'), /p.jsonl line 1:/)
  })

  it('reads the unversioned form as applying to authenticated users when it names no one', () => {
    assert.deepEqual(parsePolicyFile('{"readonly": true}'), [{ user: undefined, group: 'system:authenticated', readonly: true, namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' }])
  })
})
