// kubectl 1.27 and 1.33 against the started server, driving a custom resource from a real
// project's manifest (prometheus-operator's ServiceMonitor, in test/fixtures): the definition
// applied and established, an instance created from YAML and shown by plural, singular, short
// name and category, `explain` from the published schema (OpenAPI v3, and v2 on 1.27), server-side
// apply with a conflict, edit, label, merge and status patches, the strategic patch refused as
// the reference refuses it, an unknown field refused under --validate=strict, a watch, deletes,
// and the kind gone from discovery with its definition.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hasKubectl, kubectlFor, type Kubectl } from '../helpers/kubectl.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'

const MANIFEST = join(import.meta.dirname, '..', 'fixtures', 'servicemonitors-crd.yaml')
const CRD = 'servicemonitors.monitoring.coreos.com'

const serviceMonitor = (name: string, spec = 'jobLabel: app'): string => `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: ${name}
  namespace: default
  labels:
    team: frontend
spec:
  selector:
    matchLabels:
      app: ${name}
  endpoints:
  - port: http
    interval: 30s
  ${spec}
`

/** A table's header and the row of `name`, split on runs of spaces. */
function tableRow (out: string, name: string): { header: string[], row: string[] } {
  const lines = out.trimEnd().split('\n').map(l => l.trim().split(/\s{2,}/))
  const row = lines.find(l => l[0] === name || l[0]?.endsWith(`/${name}`))
  assert.ok(row, `no row for ${name} in\n${out}`)
  return { header: lines[0]!, row }
}

for (const version of ['1.27', '1.33']) {
  describe(`kubectl ${version} with a prometheus-operator ServiceMonitor`, { concurrency: 1, skip: hasKubectl(version) ? false : `no kubectl ${version} installed` }, () => {
    let server: RunningServer
    let kubectl: Kubectl
    const cleanups: Array<() => unknown> = []
    before(async () => {
      // Discovery lists the upstream names too, so kubectl maps apiextensions.k8s.io manifests.
      server = await startServer({ after: fn => { cleanups.push(fn) } }, ['--discovery-upstream-groups'])
      // `kubectl edit` runs this editor on the object's YAML: it changes the scrape interval.
      const editor = join(server.dataDir, 'editor.sh')
      writeFileSync(editor, '#!/bin/sh\nsed -i "s/interval: 30s/interval: 45s/" "$1"\n')
      chmodSync(editor, 0o755)
      kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version, home: join(server.dataDir, 'home'), env: { KUBE_EDITOR: editor } })
    })
    after(async () => { for (const fn of cleanups.reverse()) await fn() })

    it('applies the definition and waits for it to be established', async () => {
      assert.match(await kubectl.ok(['apply', '-f', MANIFEST]), /customresourcedefinition\.apiextensions\.k8s\.io\/servicemonitors\.monitoring\.coreos\.com created/)
      assert.match(await kubectl.ok(['wait', '--for', 'condition=established', '--timeout', '30s', `crd/${CRD}`]), /condition met/)
      const resources = await kubectl.ok(['api-resources', '--api-group', 'monitoring.coreos.com', '-o', 'wide'])
      const { header, row } = tableRow(resources, 'servicemonitors')
      assert.deepEqual(header, ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES'])
      assert.deepEqual(row, ['servicemonitors', 'smon', 'monitoring.coreos.com/v1', 'true', 'ServiceMonitor',
        'create,delete,deletecollection,get,list,patch,update,watch', 'prometheus-operator'])
    })

    it('creates an instance from YAML and gets it by plural, singular, short name and category', async () => {
      assert.equal(await kubectl.ok(['create', '-f', '-'], serviceMonitor('web')), 'servicemonitor.monitoring.coreos.com/web created\n')
      for (const name of ['servicemonitors', 'servicemonitor', 'smon', 'servicemonitors.monitoring.coreos.com', 'prometheus-operator']) {
        const out = await kubectl.ok(['get', name, '-n', 'default'])
        const { header, row } = tableRow(out, 'web')
        // The definition has no printer columns: the reference's default, Name and Age.
        assert.deepEqual(header, ['NAME', 'AGE'], `kubectl get ${name}`)
        assert.match(row[1]!, /^\d+s$/, `kubectl get ${name}:\n${out}`)
      }
      // A category lists the kinds in it with their names qualified.
      assert.match(await kubectl.ok(['get', 'prometheus-operator', '-o', 'name']), /^servicemonitor\.monitoring\.coreos\.com\/web$/m)
      const wide = tableRow(await kubectl.ok(['get', 'smon', 'web', '-o', 'wide']), 'web')
      assert.deepEqual(wide.header, ['NAME', 'AGE'])
      const obj = JSON.parse(await kubectl.ok(['get', 'servicemonitor', 'web', '-o', 'json']))
      assert.equal(obj.apiVersion, 'monitoring.coreos.com/v1')
      assert.equal(obj.kind, 'ServiceMonitor')
      assert.equal(obj.metadata.generation, 1)
      assert.deepEqual(obj.spec, { selector: { matchLabels: { app: 'web' } }, endpoints: [{ port: 'http', interval: '30s' }], jobLabel: 'app' })
      assert.equal(await kubectl.ok(['get', 'smon', 'web', '-o', 'jsonpath={.spec.endpoints[0].port}']), 'http')
      const described = await kubectl.ok(['describe', 'smon', 'web'])
      assert.match(described, /^Name:\s+web\nNamespace:\s+default\nLabels:\s+team=frontend\n/)
      assert.match(described, /^API Version:\s+monitoring\.coreos\.com\/v1\nKind:\s+ServiceMonitor$/m)
      assert.match(described, /^Spec:\n {2}Endpoints:\n {4}Interval:\s+30s\n {4}Port:\s+http\n/m)
      assert.match(described, /^Events:\s+<none>$/m)
    })

    it('explains the kind from the published schema', async () => {
      if (version === '1.27') {
        // 1.27 reads OpenAPI v3 by default; the v2 document still serves its older explain.
        const v2 = await kubectl.ok(['explain', 'servicemonitor.spec', '--output', 'plaintext-openapiv2'])
        assert.match(v2, /^KIND:\s+ServiceMonitor\nVERSION:\s+monitoring\.coreos\.com\/v1\n\nRESOURCE: spec <Object>\n/)
        assert.match(v2, /^ {3}endpoints\t<\[\]Object>/m)
        assert.match(v2, /^ {3}selector\t<Object> -required-/m)
      }
      const v3 = await kubectl.ok(['explain', 'servicemonitor.spec'])
      assert.match(v3, /^GROUP:\s+monitoring\.coreos\.com\nKIND:\s+ServiceMonitor\nVERSION:\s+v1\n\nFIELD: spec <Object>\n/)
      assert.match(v3, /spec defines the specification of desired Service selection for target/)
      assert.match(v3, /^ {2}endpoints\t<\[\]Object>/m)
      assert.match(v3, /^ {2}selector\t<Object> -required-/m)
      const field = await kubectl.ok(['explain', 'smon.spec.endpoints.port'])
      assert.match(field, /^FIELD: port <string>/m)
    })

    it('shows printer columns added to the definition, the wide ones under -o wide', async () => {
      const columns = [
        { name: 'Job Label', type: 'string', jsonPath: '.spec.jobLabel' },
        { name: 'Port', type: 'string', jsonPath: '.spec.endpoints[*].port', priority: 1 },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }
      ]
      await kubectl.ok(['patch', 'crd', CRD, '--type', 'json', '-p', JSON.stringify([{ op: 'add', path: '/spec/versions/0/additionalPrinterColumns', value: columns }])])
      const narrow = await eventually(async () => {
        const t = tableRow(await kubectl.ok(['get', 'smon']), 'web')
        assert.deepEqual(t.header, ['NAME', 'JOB LABEL', 'AGE'])
        return t
      })
      assert.deepEqual(narrow.row.slice(0, 2), ['web', 'app'])
      assert.match(narrow.row[2]!, /^\d+s$/)
      const wide = tableRow(await kubectl.ok(['get', 'smon', '-o', 'wide']), 'web')
      assert.deepEqual(wide.header, ['NAME', 'JOB LABEL', 'PORT', 'AGE'])
      assert.deepEqual(wide.row.slice(0, 3), ['web', 'app', 'http'])
    })

    it('shows an empty cell where an instance lacks a column\'s field', async () => {
      await kubectl.ok(['create', '-f', '-'], serviceMonitor('unlabelled', ''))
      const { row } = tableRow(await kubectl.ok(['get', 'smon', 'unlabelled']), 'unlabelled')
      assert.equal(row.length, 2, row.join(' | '))
      assert.match(row[1]!, /^\d+s$/)
    })

    it('re-applies a changed manifest client-side (a JSON merge patch for a custom resource)', async () => {
      assert.match(await kubectl.ok(['apply', '-f', '-'], serviceMonitor('applied')), /servicemonitor\.monitoring\.coreos\.com\/applied created/)
      assert.match(await kubectl.ok(['apply', '-f', '-'], serviceMonitor('applied', 'jobLabel: changed')), /servicemonitor\.monitoring\.coreos\.com\/applied configured/)
      assert.equal(await kubectl.ok(['get', 'smon', 'applied', '-o', 'jsonpath={.spec.jobLabel}']), 'changed')
    })

    it('applies server-side, and a second field manager conflicts until it forces', async () => {
      const manifest = serviceMonitor('api')
      assert.match(await kubectl.ok(['apply', '--server-side', '-f', '-'], manifest), /servicemonitor\.monitoring\.coreos\.com\/api serverside-applied/)
      const conflict = await kubectl.run(['apply', '--server-side', '--field-manager', 'other', '-f', '-'], manifest.replace('jobLabel: app', 'jobLabel: other'))
      assert.equal(conflict.code, 1)
      assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl": \.spec\.jobLabel$/m)
      await kubectl.ok(['apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', '-'], manifest.replace('jobLabel: app', 'jobLabel: other'))
      const obj = JSON.parse(await kubectl.ok(['get', 'smon', 'api', '-o', 'json', '--show-managed-fields']))
      assert.equal(obj.spec.jobLabel, 'other')
      assert.deepEqual(obj.metadata.managedFields.map((f: { manager: string, operation: string }) => `${f.manager} ${f.operation}`).sort(), ['kubectl Apply', 'other Apply'])
    })

    it('edits, labels and merge-patches an instance; a strategic merge patch is refused', async () => {
      assert.match(await kubectl.ok(['edit', 'smon', 'web']), /servicemonitor\.monitoring\.coreos\.com\/web edited/)
      assert.equal(await kubectl.ok(['get', 'smon', 'web', '-o', 'jsonpath={.spec.endpoints[0].interval} {.metadata.generation}']), '45s 2')

      assert.match(await kubectl.ok(['label', 'smon', 'web', 'tier=edge']), /servicemonitor\.monitoring\.coreos\.com\/web labeled/)
      assert.equal(await kubectl.ok(['get', 'smon', '-l', 'tier=edge', '-o', 'name']), 'servicemonitor.monitoring.coreos.com/web\n')

      assert.match(await kubectl.ok(['patch', 'smon', 'web', '--type', 'merge', '-p', '{"spec":{"jobLabel":"team"}}']), /servicemonitor\.monitoring\.coreos\.com\/web patched/)
      assert.equal(await kubectl.ok(['get', 'smon', 'web', '-o', 'jsonpath={.spec.jobLabel} {.metadata.generation}']), 'team 3')

      const strategic = await kubectl.run(['patch', 'smon', 'web', '-p', '{"spec":{"jobLabel":"x"}}'])
      assert.equal(strategic.code, 1)
      assert.equal(strategic.stderr.trim(), 'error: application/strategic-merge-patch+json is not supported by monitoring.coreos.com/v1, Kind=ServiceMonitor: ' +
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml')
    })

    it('patches the status subresource, which the main resource does not change', async () => {
      const status = { bindings: [{ group: 'monitoring.coreos.com', resource: 'prometheuses', name: 'k8s', namespace: 'monitoring' }] }
      await kubectl.ok(['patch', 'smon', 'web', '--subresource', 'status', '--type', 'merge', '-p', JSON.stringify({ status })])
      await kubectl.ok(['patch', 'smon', 'web', '--type', 'merge', '-p', '{"status":{"bindings":[]}}'])
      const obj = JSON.parse(await kubectl.ok(['get', 'smon', 'web', '-o', 'json']))
      assert.deepEqual(obj.status, status)
      assert.equal(obj.metadata.generation, 3, 'status does not move the generation')
    })

    it('refuses a field the schema does not declare under --validate=strict, and drops it without', async () => {
      const typo = serviceMonitor('typo', 'jobLable: app')
      const strict = await kubectl.run(['create', '--validate=strict', '-f', '-'], typo)
      assert.equal(strict.code, 1)
      assert.match(strict.stderr, /ServiceMonitor in version "v1" cannot be handled as a ServiceMonitor: strict decoding error: unknown field "spec\.jobLable"/)
      assert.equal((await kubectl.run(['get', 'smon', 'typo'])).code, 1)
      const warned = await kubectl.check(['create', '--validate=warn', '-f', '-'], typo)
      assert.match(warned.stderr, /Warning: unknown field "spec\.jobLable"/)
      assert.equal(await kubectl.ok(['get', 'smon', 'typo', '-o', 'jsonpath={.spec.jobLable}|{.spec.selector.matchLabels.app}']), '|typo')
    })

    it('watches an instance change and go, and deletes it', async () => {
      const watch = kubectl.spawn(['get', 'smon', '--watch', '--output-watch-events', '-n', 'default'])
      let out = ''
      watch.stdout.on('data', (d: Buffer) => { out += d.toString() })
      try {
        await eventually(() => assert.match(out, /^ADDED\s+web\s/m))
        await kubectl.ok(['label', 'smon', 'web', 'watched=yes'])
        assert.match(await kubectl.ok(['delete', 'smon', 'web']), /servicemonitor\.monitoring\.coreos\.com "web" deleted/)
        await eventually(() => assert.match(out, /^DELETED\s+web\s/m))
        const events = out.split('\n').filter(l => /\sweb\s/.test(l)).map(l => l.split(/\s+/)[0])
        assert.deepEqual(events, ['ADDED', 'MODIFIED', 'DELETED'], out)
      } finally {
        watch.kill()
        if (watch.exitCode === null) await once(watch, 'exit')
      }
      const gone = await kubectl.run(['get', 'smon', 'web'])
      assert.equal(gone.code, 1)
      assert.match(gone.stderr, /Error from server \(NotFound\): servicemonitors\.monitoring\.coreos\.com "web" not found/)
    })

    it('scales an instance of a kind with a scale subresource', async () => {
      await kubectl.ok(['apply', '-f', '-'], JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'workers.jobs.example.com' },
        spec: {
          group: 'jobs.example.com',
          scope: 'Namespaced',
          names: { plural: 'workers', singular: 'worker', kind: 'Worker' },
          versions: [{
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 } } }, status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } } } } },
            subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
            additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }]
          }]
        }
      }))
      await kubectl.ok(['wait', '--for', 'condition=established', '--timeout', '30s', 'crd/workers.jobs.example.com'])
      await eventually(async () => { await kubectl.ok(['get', 'workers']) })
      await kubectl.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'jobs.example.com/v1', kind: 'Worker', metadata: { name: 'w1', namespace: 'default' }, spec: { replicas: 1 } }))
      assert.match(await kubectl.ok(['scale', 'worker', 'w1', '--replicas', '4']), /worker\.jobs\.example\.com\/w1 scaled/)
      assert.equal(await kubectl.ok(['get', 'worker', 'w1', '-o', 'jsonpath={.spec.replicas}']), '4')
      // With a precondition on the current replicas, as `kubectl scale --current-replicas` sends it.
      const stale = await kubectl.run(['scale', 'worker', 'w1', '--current-replicas', '2', '--replicas', '5'])
      assert.notEqual(stale.code, 0)
      assert.match(stale.stderr, /Expected replicas to be 2, was 4/)
      await kubectl.ok(['delete', 'crd', 'workers.jobs.example.com', '--timeout', '30s'])
    })

    it('deletes the definition: the kind leaves discovery', async () => {
      assert.match(await kubectl.ok(['delete', 'crd', CRD, '--timeout', '30s']), /servicemonitors\.monitoring\.coreos\.com" deleted/)
      assert.equal(await kubectl.ok(['api-resources', '--api-group', 'monitoring.coreos.com', '--no-headers']), '')
      const gone = await kubectl.run(['get', 'smon'])
      assert.equal(gone.code, 1)
      assert.match(gone.stderr, /the server doesn't have a resource type "smon"/)
    })
  })
}
