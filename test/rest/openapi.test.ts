// /openapi/v3 and /openapi/v2 generated from the registered kinds.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { decodeV2 } from '../../plugins/openapi/protobuf.js'
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DOTTED } from '../../plugins/openapi/index.js'

describe('openapi', () => {
  it('indexes every group version with a content hash, and serves it immutably under that hash', async (t) => {
    const { request } = await buildTestApp(t)
    const index = await request({ method: 'GET', url: '/openapi/v3' })
    assert.equal(index.statusCode, 200)
    assert.match(index.headers['content-type'] as string, /^application\/json/)
    const entry = index.json().paths['api/v1']
    assert.match(entry.serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/)
    const hash = entry.serverRelativeURL.split('hash=')[1]

    const doc = await request({ method: 'GET', url: entry.serverRelativeURL })
    assert.equal(doc.statusCode, 200)
    assert.equal(doc.headers['cache-control'], 'public, immutable')
    assert.equal(doc.headers.etag, `"${hash}"`)
    const again = await request({ method: 'GET', url: entry.serverRelativeURL, headers: { 'if-none-match': `"${hash}"` } })
    assert.equal(again.statusCode, 304)
    const stale = await request({ method: 'GET', url: '/openapi/v3/api/v1?hash=ABC' })
    assert.equal(stale.statusCode, 301)
    assert.equal(stale.headers.location, entry.serverRelativeURL)
    const plain = await request({ method: 'GET', url: '/openapi/v3/api/v1' })
    assert.equal(plain.headers['cache-control'], 'no-cache, private')
    assert.equal((await request({ method: 'GET', url: '/openapi/v3/apis/nothing.example/v1' })).statusCode, 404)
  })

  it('describes each kind with its markers, and every PATCH with its parameters and patch types', async (t) => {
    const { request } = await buildTestApp(t)
    const doc = (await request({ method: 'GET', url: '/openapi/v3/api/v1' })).json()
    const cm = doc.components.schemas['io.k8s.api.core.v1.ConfigMap']
    assert.deepEqual(cm['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }])
    assert.equal(cm.properties.data.type, 'object')
    assert.deepEqual(cm.properties.data.additionalProperties, { type: 'string' })
    assert.match(cm.properties.data.description, /Configuration data/)
    assert.deepEqual(cm.properties.metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }])
    const meta = doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']
    assert.equal(meta.properties.finalizers['x-kubernetes-patch-strategy'], 'merge')
    assert.equal(meta.properties.ownerReferences['x-kubernetes-patch-merge-key'], 'uid')
    assert.deepEqual(meta.properties.ownerReferences['x-kubernetes-list-map-keys'], ['uid'])
    assert.deepEqual(doc.components.schemas['io.k8s.api.core.v1.ConfigMapList'].properties.items.items, { $ref: '#/components/schemas/io.k8s.api.core.v1.ConfigMap' })

    const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' })
    assert.equal(patch['x-kubernetes-action'], 'patch')
    const query = patch.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name)
    for (const p of ['dryRun', 'fieldManager', 'fieldValidation', 'force']) assert.ok(query.includes(p), p)
    assert.deepEqual(Object.keys(patch.requestBody.content).sort(),
      ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'])
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { 'x-kubernetes-group-version-kind'?: unknown }>>)) {
      for (const [method, op] of Object.entries(item)) assert.ok(op['x-kubernetes-group-version-kind'] !== undefined, `${method} ${path}`)
    }
    // Namespaces: cluster scope, the finalize subresource takes only PUT, delete returns the object.
    assert.equal(doc.paths['/api/v1/namespaces/{name}/finalize'].put['x-kubernetes-action'], 'put')
    assert.equal(doc.paths['/api/v1/namespaces/{name}/finalize'].patch, undefined)
    assert.deepEqual(doc.paths['/api/v1/namespaces/{name}'].delete.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.api.core.v1.Namespace' })
    assert.ok(doc.paths['/api/v1/watch/namespaces/{namespace}/configmaps'].get)
    assert.ok(doc.paths['/api/v1/configmaps'].get)
  })

  it('serves v2 as JSON and as the gnostic protobuf, with the same content', async (t) => {
    const { request } = await buildTestApp(t)
    const json = await request({ method: 'GET', url: '/openapi/v2' })
    assert.equal(json.statusCode, 200)
    const swagger = json.json()
    assert.equal(swagger.swagger, '2.0')
    const cm = swagger.definitions['io.k8s.api.core.v1.ConfigMap']
    assert.equal(cm.properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')

    const pb = await request({ method: 'GET', url: '/openapi/v2', headers: { accept: `${OPENAPI_V2_PROTOBUF}, application/json` } })
    assert.equal(pb.statusCode, 200)
    assert.equal(pb.headers['content-type'], OPENAPI_V2_PROTOBUF_DOTTED)
    const decoded = decodeV2(pb.rawPayload)
    assert.equal(decoded.swagger, '2.0')
    const def = decoded.definitions.additional_properties.find((d: { name: string }) => d.name === 'io.k8s.api.core.v1.ConfigMap').value
    assert.deepEqual(def.type.value, ['object'])
    const gvk = def.vendor_extension.find((e: { name: string }) => e.name === 'x-kubernetes-group-version-kind')
    assert.match(gvk.value.yaml, /kind: ConfigMap/)
    const data = def.properties.additional_properties.find((p: { name: string }) => p.name === 'data').value
    assert.deepEqual(data.additional_properties.schema.type.value, ['string'])
    const paths = decoded.paths.path.map((p: { name: string }) => p.name)
    assert.deepEqual(paths, Object.keys(swagger.paths))
    const patch = decoded.paths.path.find((p: { name: string }) => p.name === '/api/v1/namespaces/{namespace}/configmaps/{name}').value.patch
    const names = patch.parameters.map((p: any) => p.parameter.non_body_parameter?.query_parameter_sub_schema?.name).filter(Boolean)
    assert.ok(names.includes('fieldValidation'))

    assert.equal((await request({ method: 'GET', url: '/openapi/v2', headers: { accept: 'application/xml' } })).statusCode, 406)
  })
})
