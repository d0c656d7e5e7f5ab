// Every installed kubectl (1.27 to 1.33) against one started server through the daily commands,
// each without --validate=false. Versions run a few at a time, each in its own namespace.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, type RunningServer } from '../helpers/server.js'
import { kubectlFor, selectedKubectlMinors } from '../helpers/kubectl.js'

const SELECTED = selectedKubectlMinors()

let server: RunningServer
const homes = new Map<number, string>()

/** kubectl 1.`minor`, with a home of its own (its discovery cache) per version. */
const kubectlOf = (minor: number) => kubectlFor({ kubeconfig: server.kubeconfig, version: `1.${minor}`, home: homes.get(minor) })
const kubectl = (minor: number, args: string[], input?: string) => kubectlOf(minor).run(args, input)

/** Runs a command that must succeed; returns its standard output. */
async function ok (minor: number, args: string[], input?: string): Promise<string> {
  const r = await kubectl(minor, args, input)
  assert.equal(r.code, 0, `kubectl.1.${minor} ${args.join(' ')} exited ${r.code}\n${r.stderr}${r.stdout}`)
  return r.stdout
}

const manifest = (o: object): string => JSON.stringify(o)
const configMap = (ns: string, name: string, data: Record<string, string>, extra: object = {}) =>
  manifest({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ...extra }, data })

/** Lines of a table as arrays of cells. */
const rows = (out: string): string[][] => out.trim().split('\n').map(l => l.trim().split(/\s{2,}/))

const cleanups: Array<() => unknown> = []
after(async () => { for (const fn of cleanups.reverse()) await fn() })

before(async () => {
  server = await startServer({ after: (fn) => { cleanups.push(fn) } })
  for (const v of SELECTED) homes.set(v, mkdtempSync(join(tmpdir(), `kubectl-home-${v}-`)))
})

describe('kubectl matrix', { concurrency: 3, skip: SELECTED.length === 0 ? 'no kubectl binaries installed' : false }, () => {
  for (const v of SELECTED) {
    const ns = `matrix-1-${v}`
    const file = (name: string, body: string): string => {
      const path = join(homes.get(v)!, name)
      writeFileSync(path, body)
      return path
    }

    // Steps of one version build on each other: in order (subtests would inherit the parent's concurrency).
    describe(`kubectl 1.${v}`, { concurrency: 1 }, () => {
      it('version reports the server API level', async () => {
        const out = JSON.parse(await ok(v, ['version', '-o', 'json']))
        assert.equal(out.serverVersion.major, '1')
        assert.equal(out.serverVersion.minor, '33')
        assert.match(out.serverVersion.gitVersion, /^v1\.33\.0-/)
      })

      it('api-resources lists the kinds', async () => {
        const out = await ok(v, ['api-resources'])
        const cm = rows(out).find(r => r[0] === 'configmaps')
        assert.deepEqual(cm, ['configmaps', 'cm', 'v1', 'true', 'ConfigMap'])
      })

      it('create -f makes the namespace', async () => {
        const path = file('ns.json', manifest({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }))
        assert.match(await ok(v, ['create', '-f', path]), new RegExp(`namespace/${ns} created`))
      })

      it('create configmap (1.32+ send a protobuf body)', async () => {
        assert.match(await ok(v, ['create', 'configmap', 'generated', '-n', ns, '--from-literal=a=1']), /configmap\/generated created/)
      })

      it('create secret (1.32+ send a protobuf body)', async () => {
        assert.match(await ok(v, ['create', 'secret', 'generic', 'sekrit', '-n', ns, '--from-literal=password=p']), /secret\/sekrit created/)
      })

      it('create namespace (1.32+ send a protobuf body)', async () => {
        assert.match(await ok(v, ['create', 'namespace', `${ns}-extra`]), new RegExp(`namespace/${ns}-extra created`))
      })

      it('create -f makes a configmap', async () => {
        const path = file('cm.json', configMap(ns, 'plain', { a: '1', b: '2' }))
        assert.match(await ok(v, ['create', '-f', path]), /configmap\/plain created/)
      })

      it('get shows the kind\'s columns', async () => {
        const table = rows(await ok(v, ['get', 'configmaps', '-n', ns]))
        assert.deepEqual(table[0], ['NAME', 'DATA', 'AGE'])
        assert.deepEqual(table.find(r => r[0] === 'plain')?.slice(0, 2), ['plain', '2'], JSON.stringify(table))
      })

      it('get -o yaml shows the object', async () => {
        const out = await ok(v, ['get', 'configmap', 'plain', '-n', ns, '-o', 'yaml'])
        assert.match(out, /^kind: ConfigMap$/m)
        assert.match(out, /^ {2}name: plain$/m)
        assert.match(out, /^ {2}a: "1"$/m)
      })

      it('get -o wide adds the priority columns', async () => {
        const uid = JSON.parse(await ok(v, ['get', 'configmap', 'plain', '-n', ns, '-o', 'json'])).metadata.uid
        const path = file('event.json', manifest({
          apiVersion: 'v1', kind: 'Event', metadata: { name: 'plain.created', namespace: ns },
          involvedObject: { kind: 'ConfigMap', name: 'plain', namespace: ns, uid, apiVersion: 'v1' }, reason: 'Created', message: 'made by the matrix', type: 'Normal', source: { component: 'matrix' }, count: 1
        }))
        await ok(v, ['create', '-f', path])
        const narrow = rows(await ok(v, ['get', 'events', '-n', ns]))
        const wide = rows(await ok(v, ['get', 'events', '-n', ns, '-o', 'wide']))
        assert.ok(!narrow[0]!.includes('SOURCE'), narrow[0]!.join(' '))
        assert.ok(wide[0]!.includes('SOURCE') && wide[0]!.includes('COUNT'), wide[0]!.join(' '))
        assert.ok(wide[1]!.includes('matrix'), wide[1]!.join(' '))
      })

      it('get -A adds the namespace column', async () => {
        const table = rows(await ok(v, ['get', 'configmaps', '-A']))
        assert.deepEqual(table[0], ['NAMESPACE', 'NAME', 'DATA', 'AGE'])
        assert.ok(table.some(r => r[0] === ns && r[1] === 'plain'))
      })

      it('get -w streams changes until its timeout', async () => {
        const child = kubectlOf(v).spawn(['get', 'configmaps', '-n', ns, '-w', '--request-timeout=5s'])
        let out = ''
        child.stdout.on('data', (d: Buffer) => { out += d.toString() })
        const exited = new Promise<number>(resolve => child.on('close', (code) => resolve(code ?? -1)))
        const deadline = Date.now() + 10_000
        while (!out.includes('plain') && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 50))
        assert.ok(out.includes('plain'), `no initial rows from get -w: ${out}`)
        await ok(v, ['create', '-f', file('watched.json', configMap(ns, 'watched', { w: '1' }))])
        assert.equal(await exited, 0)
        assert.ok(rows(out).some(r => r[0] === 'watched'), out)
      })

      it('describe shows data and events', async () => {
        const out = await ok(v, ['describe', 'configmap', 'plain', '-n', ns])
        assert.match(out, /^Name:\s+plain$/m)
        assert.match(out, /^Namespace:\s+matrix-1-\d+$/m)
        assert.match(out, /^Data$/m)
        assert.match(out, /made by the matrix/)
      })

      it('apply -f twice, with a change between', async () => {
        const path = file('applied.json', configMap(ns, 'applied', { k: 'one' }, { labels: { tier: 'a' } }))
        assert.match(await ok(v, ['apply', '-f', path]), /configmap\/applied created/)
        file('applied.json', configMap(ns, 'applied', { k: 'two', extra: 'x' }, { labels: { tier: 'b' } }))
        assert.match(await ok(v, ['apply', '-f', path]), /configmap\/applied configured/)
        const got = JSON.parse(await ok(v, ['get', 'configmap', 'applied', '-n', ns, '-o', 'json']))
        assert.deepEqual(got.data, { k: 'two', extra: 'x' })
        assert.deepEqual(got.metadata.labels, { tier: 'b' })
        assert.ok(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'].includes('"two"'))
        file('applied.json', configMap(ns, 'applied', { k: 'three' }, { labels: { tier: 'b' } }))
        assert.match(await ok(v, ['apply', '-f', path]), /configmap\/applied configured/)
        const again = JSON.parse(await ok(v, ['get', 'configmap', 'applied', '-n', ns, '-o', 'json']))
        assert.deepEqual(again.data, { k: 'three' }, 'apply removes keys dropped from the manifest')
      })

      it('diff shows nothing for an unchanged manifest and the change for a changed one', async () => {
        const path = file('diffed.json', configMap(ns, 'applied', { k: 'three' }, { labels: { tier: 'b' } }))
        await ok(v, ['diff', '-f', path])
        file('diffed.json', configMap(ns, 'applied', { k: 'four' }, { labels: { tier: 'b' } }))
        const r = await kubectl(v, ['diff', '-f', path])
        assert.equal(r.code, 1, `diff exits 1 when there are differences\n${r.stderr}`)
        assert.match(r.stdout, /^-\s+k: three$/m)
        assert.match(r.stdout, /^\+\s+k: four$/m)
      })

      it('patch: strategic, merge and json', async () => {
        assert.match(await ok(v, ['patch', 'configmap', 'plain', '-n', ns, '-p', '{"data":{"s":"strategic"}}']), /configmap\/plain patched/)
        assert.match(await ok(v, ['patch', 'configmap', 'plain', '-n', ns, '--type=merge', '-p', '{"data":{"m":"merge","a":null}}']), /configmap\/plain patched/)
        assert.match(await ok(v, ['patch', 'configmap', 'plain', '-n', ns, '--type=json', '-p', '[{"op":"add","path":"/data/j","value":"json"}]']), /configmap\/plain patched/)
        const got = JSON.parse(await ok(v, ['get', 'configmap', 'plain', '-n', ns, '-o', 'json']))
        assert.deepEqual(got.data, { b: '2', s: 'strategic', m: 'merge', j: 'json' })
      })

      it('label and annotate', async () => {
        assert.match(await ok(v, ['label', 'configmap', 'plain', '-n', ns, 'team=blue']), /configmap\/plain labeled/)
        assert.match(await ok(v, ['annotate', 'configmap', 'plain', '-n', ns, 'note=hello']), /configmap\/plain annotated?/)
        assert.match(await ok(v, ['label', 'configmap', 'plain', '-n', ns, 'team-']), /configmap\/plain unlabeled/)
        const got = JSON.parse(await ok(v, ['get', 'configmap', 'plain', '-n', ns, '-o', 'json']))
        assert.equal(got.metadata.labels?.team, undefined)
        assert.equal(got.metadata.annotations.note, 'hello')
      })

      it('replace', async () => {
        const current = JSON.parse(await ok(v, ['get', 'configmap', 'plain', '-n', ns, '-o', 'json']))
        current.data = { replaced: 'yes' }
        assert.match(await ok(v, ['replace', '-f', '-'], JSON.stringify(current)), /configmap\/plain replaced/)
        const got = JSON.parse(await ok(v, ['get', 'configmap', 'plain', '-n', ns, '-o', 'json']))
        assert.deepEqual(got.data, { replaced: 'yes' })
      })

      it('explain', async () => {
        const out = await ok(v, ['explain', 'configmap.data'])
        assert.match(out, /KIND:\s+ConfigMap/)
        assert.match(out, /FIELD:\s+data\s+<map\[string\]string>/)
        assert.match(out, /Configuration data/)
      })

      it('get --raw', async () => {
        const list = JSON.parse(await ok(v, ['get', '--raw', `/api/v1/namespaces/${ns}/configmaps`]))
        assert.equal(list.kind, 'ConfigMapList')
        assert.ok(list.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'plain'))
      })

      it('wait --for=delete returns once the object is gone', async () => {
        await ok(v, ['create', '-f', file('doomed.json', configMap(ns, 'doomed', { d: '1' }))])
        const waiting = ok(v, ['wait', '--for=delete', 'configmap/doomed', '-n', ns, '--timeout=20s'])
        await new Promise(resolve => setTimeout(resolve, 300))
        await ok(v, ['delete', '-f', join(homes.get(v)!, 'doomed.json'), '--wait=false'])
        assert.match(await waiting, /condition met|deleted/)
      })

      it('delete waits for the object to go, then get answers NotFound', async () => {
        assert.match(await ok(v, ['delete', 'configmap', 'plain', '-n', ns]), /configmap "plain" deleted/)
        const r = await kubectl(v, ['get', 'configmap', 'plain', '-n', ns])
        assert.equal(r.code, 1)
        assert.match(r.stderr, /configmaps "plain" not found/)
      })

      it('delete namespace', async () => {
        assert.match(await ok(v, ['delete', 'namespace', ns, '--wait=false']), new RegExp(`namespace "${ns}" deleted`))
      })
    })
  }
})
