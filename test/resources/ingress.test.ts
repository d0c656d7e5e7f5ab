// Ingress and IngressClass (networking.svc.io/v1): the v1 validation rules (hosts, paths by path
// type, backends, TLS, class parameters), the scope default, immutability, status, columns and
// the upstream group alias.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'
import { ANNOTATIONS } from '../../resources/naming.js'

const base = '/apis/networking.svc.io/v1'
const ingresses = `${base}/namespaces/default/ingresses`
const classes = `${base}/ingressclasses`
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

interface Case { name: string, url: string, body: Record<string, unknown>, field?: string, reason?: string, message?: string }

const service = (name = 'web', port: Record<string, unknown> = { number: 80 }) => ({ service: { name, port } })
const path = (extra: Record<string, unknown> = {}) => ({ path: '/', pathType: 'Prefix', backend: service(), ...extra })
const rule = (host: string | undefined, paths = [path()]) => ({ ...(host === undefined ? {} : { host }), http: { paths } })
const ing = (spec: Record<string, unknown>) => ({ spec })
const cls = (spec: Record<string, unknown>) => ({ spec: { controller: 'example.com/ingress-controller', ...spec } })

const cases: Case[] = [
  { name: 'an ingress with one rule', url: ingresses, body: ing({ rules: [rule('foo.example.com')] }) },
  { name: 'an ingress with only a default backend', url: ingresses, body: ing({ defaultBackend: service() }) },
  { name: 'an ingress with neither rules nor default backend', url: ingresses, body: ing({}), field: 'spec', message: 'either `defaultBackend` or `rules` must be specified' },
  { name: 'a wildcard host', url: ingresses, body: ing({ rules: [rule('*.example.com')] }) },
  { name: 'a wildcard beyond the first label', url: ingresses, body: ing({ rules: [rule('foo.*.example.com')] }), field: 'spec.rules[0].host', message: "a wildcard DNS-1123 subdomain must start with '*.'" },
  { name: 'a bare wildcard host', url: ingresses, body: ing({ rules: [rule('*')] }), field: 'spec.rules[0].host', reason: 'FieldValueInvalid' },
  { name: 'an upper-case host', url: ingresses, body: ing({ rules: [rule('Foo.example.com')] }), field: 'spec.rules[0].host', message: 'RFC 1123 subdomain' },
  { name: 'an IP address as host', url: ingresses, body: ing({ rules: [rule('10.0.0.1')] }), field: 'spec.rules[0].host', message: 'must be a DNS name, not an IP address' },
  { name: 'a path without pathType', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ pathType: undefined })])] }), field: 'spec.rules[0].http.paths[0].pathType', reason: 'FieldValueRequired', message: 'pathType must be specified' },
  { name: 'an unknown pathType', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ pathType: 'Regex' })])] }), field: 'spec.rules[0].http.paths[0].pathType', reason: 'FieldValueNotSupported', message: 'supported values: "Exact", "ImplementationSpecific", "Prefix"' },
  { name: 'a relative Prefix path', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ path: 'api' })])] }), field: 'spec.rules[0].http.paths[0].path', message: 'must be an absolute path' },
  { name: 'an Exact path with //', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ pathType: 'Exact', path: '/a//b' })])] }), field: 'spec.rules[0].http.paths[0].path', message: "must not contain '//'" },
  { name: 'a Prefix path with /../', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ path: '/a/../b' })])] }), field: 'spec.rules[0].http.paths[0].path', message: "must not contain '/../'" },
  { name: 'a Prefix path ending in /.', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ path: '/a/.' })])] }), field: 'spec.rules[0].http.paths[0].path', message: "cannot end with '/.'" },
  { name: 'an ImplementationSpecific path with //', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ pathType: 'ImplementationSpecific', path: '/a//b' })])] }) },
  { name: 'an ImplementationSpecific empty path', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ pathType: 'ImplementationSpecific', path: undefined })])] }) },
  { name: 'a relative ImplementationSpecific path', url: ingresses, body: ing({ rules: [rule('a.example.com', [path({ pathType: 'ImplementationSpecific', path: 'a' })])] }), field: 'spec.rules[0].http.paths[0].path', message: 'must be an absolute path' },
  { name: 'an http rule without paths', url: ingresses, body: ing({ rules: [rule('a.example.com', [])] }), field: 'spec.rules[0].http.paths', reason: 'FieldValueRequired' },
  { name: 'a backend with service and resource', url: ingresses, body: ing({ defaultBackend: { ...service(), resource: { kind: 'Bucket', name: 'b' } } }), field: 'spec.defaultBackend', message: 'cannot set both resource and service backends' },
  { name: 'a backend with neither', url: ingresses, body: ing({ defaultBackend: {} }), field: 'spec.defaultBackend', message: 'resource or service backend is required' },
  { name: 'a resource backend', url: ingresses, body: ing({ defaultBackend: { resource: { apiGroup: 'storage.example.com', kind: 'Bucket', name: 'static' } } }) },
  { name: 'a resource backend without kind', url: ingresses, body: ing({ defaultBackend: { resource: { kind: '', name: 'b' } } }), field: 'spec.defaultBackend.resource.kind', reason: 'FieldValueRequired' },
  { name: 'a service without port', url: ingresses, body: ing({ defaultBackend: service('web', {}) }), field: 'spec.defaultBackend', reason: 'FieldValueRequired', message: 'port name or number is required' },
  { name: 'a service with port name and number', url: ingresses, body: ing({ defaultBackend: service('web', { name: 'http', number: 80 }) }), field: 'spec.defaultBackend', message: 'cannot set both port name & port number' },
  { name: 'a named service port', url: ingresses, body: ing({ defaultBackend: service('web', { name: 'http' }) }) },
  { name: 'a bad port name', url: ingresses, body: ing({ defaultBackend: service('web', { name: '80' }) }), field: 'spec.defaultBackend.service.port.name', message: 'must contain at least one letter (a-z)' },
  { name: 'a port number out of range', url: ingresses, body: ing({ defaultBackend: service('web', { number: 70000 }) }), field: 'spec.defaultBackend.service.port.number', message: 'must be between 1 and 65535, inclusive' },
  { name: 'a service name starting with a digit', url: ingresses, body: ing({ defaultBackend: service('1web') }), field: 'spec.defaultBackend.service.name', message: 'DNS-1035 label' },
  { name: 'tls hosts and secret', url: ingresses, body: ing({ defaultBackend: service(), tls: [{ hosts: ['a.example.com', '*.example.com'], secretName: 'example-tls' }] }) },
  { name: 'a bad tls host', url: ingresses, body: ing({ defaultBackend: service(), tls: [{ hosts: ['a_b.example.com'] }] }), field: 'spec.tls[0].hosts[0]', reason: 'FieldValueInvalid' },
  { name: 'a bad tls secret name', url: ingresses, body: ing({ defaultBackend: service(), tls: [{ secretName: 'Bad_Name' }] }), field: 'spec.tls[0].secretName', reason: 'FieldValueInvalid' },
  { name: 'a bad class name', url: ingresses, body: ing({ defaultBackend: service(), ingressClassName: 'Not A Name' }), field: 'spec.ingressClassName', reason: 'FieldValueInvalid' },
  { name: 'an ingress class', url: classes, body: cls({}) },
  { name: 'a class without controller', url: classes, body: { spec: {} }, field: 'spec.controller', reason: 'FieldValueRequired' },
  { name: 'a controller without domain', url: classes, body: cls({ controller: 'nginx' }), field: 'spec.controller', message: 'must be a domain-prefixed path (such as "acme.io/foo")' },
  { name: 'a controller with a bad domain', url: classes, body: cls({ controller: 'Example.com/x' }), field: 'spec.controller', message: 'RFC 1123 subdomain' },
  { name: 'a controller with a bad path', url: classes, body: cls({ controller: 'example.com/a b' }), field: 'spec.controller', message: 'Invalid path' },
  { name: 'a controller over 250 bytes', url: classes, body: cls({ controller: `example.com/${'a'.repeat(250)}` }), field: 'spec.controller', reason: 'FieldValueTooLong' },
  { name: 'namespaced parameters', url: classes, body: cls({ parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'p', scope: 'Namespace', namespace: 'ingress' } }) },
  { name: 'namespaced parameters without namespace', url: classes, body: cls({ parameters: { kind: 'P', name: 'p', scope: 'Namespace' } }), field: 'spec.parameters.namespace', reason: 'FieldValueRequired', message: "`parameters.scope` is set to 'Namespace'" },
  { name: 'cluster parameters with a namespace', url: classes, body: cls({ parameters: { kind: 'P', name: 'p', scope: 'Cluster', namespace: 'x' } }), field: 'spec.parameters.namespace', reason: 'FieldValueForbidden' },
  { name: 'an unknown parameters scope', url: classes, body: cls({ parameters: { kind: 'P', name: 'p', scope: 'Global' } }), field: 'spec.parameters.scope', reason: 'FieldValueNotSupported' },
  { name: 'parameters without name', url: classes, body: cls({ parameters: { kind: 'P', name: '' } }), field: 'spec.parameters.name', reason: 'FieldValueRequired' }
]

describe('networking kinds', () => {
  const app = suiteApp({ admission: { disable: ['DefaultIngressClass'] } })
  let n = 0

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await app().request({ method: 'POST', url: c.url, payload: { metadata: { name: `o${++n}` }, ...c.body } })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('knows only the v1 field names: spec.backend and serviceName are the older versions\'', async () => {
    const res = await app().request({ method: 'POST', url: `${ingresses}?fieldValidation=Strict`, payload: { metadata: { name: 'old-shape' }, spec: { backend: { serviceName: 'web', servicePort: 80 } } } })
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().message, 'Ingress in version "v1" cannot be handled as a Ingress: strict decoding error: unknown field "spec.backend"')
  })

  it('defaults the parameters scope to Cluster', async () => {
    const res = await app().request({ method: 'POST', url: classes, payload: { metadata: { name: 'scoped' }, ...cls({ parameters: { kind: 'P', name: 'p' } }) } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.parameters.scope, 'Cluster')
  })

  it('keeps a class controller immutable', async () => {
    await app().request({ method: 'POST', url: classes, payload: { metadata: { name: 'fixed' }, ...cls({}) } })
    const res = await app().request({ method: 'PATCH', url: `${classes}/fixed`, headers: mergePatch, payload: { spec: { controller: 'example.com/other' } } })
    assertInvalid(res, 'spec.controller', 'FieldValueInvalid', 'field is immutable')
    const params = await app().request({ method: 'PATCH', url: `${classes}/fixed`, headers: mergePatch, payload: { spec: { parameters: { kind: 'P', name: 'q' } } } })
    assert.equal(params.statusCode, 200, params.body)
    assert.equal(params.json().metadata.generation, 2)
  })

  it('shows a class as kubectl does: controller and parameters', async () => {
    const res = await app().request({ method: 'GET', url: classes, headers: TABLE })
    const t = res.json()
    assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Controller', 'Parameters', 'Age'])
    const row = (name: string) => t.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells
    assert.deepEqual(row('fixed').slice(0, 3), ['fixed', 'example.com/ingress-controller', 'P/q'])
    assert.deepEqual(row(`o${cases.findIndex(c => c.name === 'namespaced parameters') + 1}`).slice(1, 3), ['example.com/ingress-controller', 'IngressParameters.k8s.example.com/p'])
    assert.equal(row(`o${cases.findIndex(c => c.name === 'an ingress class') + 1}`)[2], '<none>')
  })

  it('refuses a class annotation that contradicts ingressClassName on create, and warns of the annotation', async () => {
    const annotations = { [ANNOTATIONS.ingressClass]: 'nginx' }
    const bad = await app().request({ method: 'POST', url: ingresses, payload: { metadata: { name: 'contradicts', annotations }, spec: { ingressClassName: 'other', defaultBackend: service() } } })
    assertInvalid(bad, `annotations.${ANNOTATIONS.ingressClass}`, 'FieldValueInvalid', 'must match `ingressClassName` when both are specified')
    const ok = await app().request({ method: 'POST', url: ingresses, payload: { metadata: { name: 'annotated', annotations }, spec: { defaultBackend: service() } } })
    assert.equal(ok.statusCode, 201, ok.body)
    assert.match(String(ok.headers.warning), /annotation \\"svc\.io\/ingress\.class\\" is deprecated, please use 'spec\.ingressClassName' instead/)
    const update = await app().request({ method: 'PATCH', url: `${ingresses}/annotated`, headers: mergePatch, payload: { spec: { ingressClassName: 'other' } } })
    assert.equal(update.statusCode, 200, update.body)
  })

  it('takes status only through /status, and checks its addresses', async () => {
    await app().request({ method: 'POST', url: ingresses, payload: { metadata: { name: 'lb' }, spec: { ingressClassName: 'nginx', rules: [rule('a.example.com'), rule(undefined), rule('b.example.com'), rule('c.example.com'), rule('d.example.com')], tls: [{ hosts: ['a.example.com'] }] }, status: { loadBalancer: { ingress: [{ ip: '10.0.0.9' }] } } } })
    const created = await app().request({ method: 'GET', url: `${ingresses}/lb` })
    assert.equal(created.json().status?.loadBalancer?.ingress, undefined)
    const bad = await app().request({ method: 'PATCH', url: `${ingresses}/lb/status`, headers: mergePatch, payload: { status: { loadBalancer: { ingress: [{ hostname: '10.0.0.1' }] } } } })
    assertInvalid(bad, 'status.loadBalancer.ingress[0].hostname', 'FieldValueInvalid', 'must be a DNS name, not an IP address')
    const badIp = await app().request({ method: 'PATCH', url: `${ingresses}/lb/status`, headers: mergePatch, payload: { status: { loadBalancer: { ingress: [{ ip: 'not-an-ip' }] } } } })
    assertInvalid(badIp, 'status.loadBalancer.ingress[0].ip', 'FieldValueInvalid')
    const ok = await app().request({ method: 'PATCH', url: `${ingresses}/lb/status`, headers: mergePatch, payload: { status: { loadBalancer: { ingress: [{ ip: '10.0.0.9' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.2', ports: [{ port: 443, protocol: 'TCP' }] }] } } } })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  it('shows an ingress as kubectl does: class, hosts, address, ports', async () => {
    const t = (await app().request({ method: 'GET', url: ingresses, headers: TABLE })).json()
    assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age'])
    const row = (name: string) => t.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells
    assert.deepEqual(row('lb').slice(0, 5), ['lb', 'nginx', 'a.example.com,b.example.com,c.example.com + 2 more...', '10.0.0.2,10.0.0.9,lb.example.com', '80, 443'])
    assert.deepEqual(row('o1').slice(1, 5), ['<none>', 'foo.example.com', '', '80'])
    assert.equal(row('o2')[2], '*')
  })

  it('is served under the upstream group name too, with kubectl\'s short name in discovery', async () => {
    const res = await app().request({ method: 'POST', url: '/apis/networking.k8s.io/v1/namespaces/default/ingresses', payload: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'upstream' }, spec: { defaultBackend: service() } } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().apiVersion, 'networking.k8s.io/v1')
    assert.equal((await app().request({ method: 'GET', url: `${ingresses}/upstream` })).json().apiVersion, 'networking.svc.io/v1')
    const discovery = (await app().request({ method: 'GET', url: base })).json()
    const ingress = discovery.resources.find((r: { name: string }) => r.name === 'ingresses')
    assert.deepEqual(ingress.shortNames, ['ing'])
    assert.ok(discovery.resources.some((r: { name: string }) => r.name === 'ingresses/status'))
    assert.ok(discovery.resources.some((r: { name: string, namespaced: boolean }) => r.name === 'ingressclasses' && !r.namespaced))
  })

  it('takes a server-side apply of an ingress, and a second manager\'s rules replace the list as a whole', async () => {
    const apply = (manager: string, body: Record<string, unknown>) => app().request({
      method: 'PATCH', url: `${ingresses}/applied?fieldManager=${manager}&force=true`, headers: { 'content-type': 'application/apply-patch+yaml' },
      payload: JSON.stringify({ apiVersion: 'networking.svc.io/v1', kind: 'Ingress', metadata: { name: 'applied' }, ...body })
    })
    const first = await apply('one', { spec: { ingressClassName: 'nginx', rules: [rule('a.example.com'), rule('b.example.com')] } })
    assert.equal(first.statusCode, 201, first.body)
    const second = await apply('two', { spec: { rules: [rule('c.example.com')] } })
    assert.equal(second.statusCode, 200, second.body)
    assert.deepEqual(second.json().spec.rules.map((r: { host: string }) => r.host), ['c.example.com'])
    assert.equal(second.json().spec.ingressClassName, 'nginx')
  })

  it('documents the kinds in OpenAPI under the upstream package names', async () => {
    const doc = (await app().request({ method: 'GET', url: '/openapi/v3/apis/networking.svc.io/v1' })).json()
    assert.ok(doc.components.schemas['io.k8s.api.networking.v1.Ingress'])
    assert.ok(doc.components.schemas['io.k8s.api.networking.v1.IngressClass'])
  })
})
