// What clients learn before they ask for objects: discovery and the OpenAPI documents.
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.js'
import type { AnyObject } from '../../resources/define.js'
import type { Behaviour } from './behaviour.js'
import { expectCode } from './client.js'
import { aggregatedMediaType } from '../../plugins/aggregated-discovery.js'
import type { Subject } from './subject.js'

// The documents are large and the same for every kind: read once per app.
const documents = new WeakMap<TestApp, Map<string, Promise<AnyObject>>>()

function document (api: TestApp, url: string, accept = 'application/json'): Promise<AnyObject> {
  let byRequest = documents.get(api)
  if (byRequest === undefined) documents.set(api, byRequest = new Map())
  const key = `${accept} ${url}`
  let doc = byRequest.get(key)
  if (doc === undefined) {
    doc = api.request({ method: 'GET', url, headers: { accept } }).then(res => { expectCode(res, 200); return res.json() as AnyObject })
    byRequest.set(key, doc)
  }
  return doc
}

const sorted = (xs: readonly string[] | undefined): string[] => [...(xs ?? [])].sort()

/** The group version kind a definition or operation names, as the documents spell it. */
const gvk = (s: Subject): AnyObject => ({ group: s.served.group, version: s.served.version, kind: s.served.kind })
const namesKind = (s: Subject, value: unknown): boolean =>
  [value].flat().some(v => v !== null && typeof v === 'object' && (['group', 'version', 'kind'] as const).every(k => (v as AnyObject)[k] === gvk(s)[k]))

export const discovery: Behaviour = {
  name: 'is listed in discovery with its verbs, short names, categories and subresources',
  applies: () => true,
  async run (s, api) {
    const list = await document(api, s.groupVersionPath)
    assert.equal(list.kind, 'APIResourceList')
    const resources = list.resources as AnyObject[]
    const entry = resources.find(r => r.name === s.served.plural)
    assert.ok(entry, `${s.served.plural} not in ${s.groupVersionPath}`)
    assert.equal(entry.kind, s.served.kind)
    assert.equal(entry.singularName, s.served.singular)
    assert.equal(entry.namespaced, s.served.namespaced)
    assert.deepEqual(sorted(entry.verbs), sorted(s.served.verbs))
    assert.deepEqual(sorted(entry.shortNames), sorted(s.served.shortNames))
    assert.deepEqual(sorted(entry.categories), sorted(s.served.categories))
    for (const sub of Object.keys(s.served.subresources)) {
      assert.ok(resources.some(r => r.name === `${s.served.plural}/${sub}`), `${s.served.plural}/${sub} not listed`)
    }
  }
}

export const aggregatedDiscovery: Behaviour = {
  name: 'is listed in aggregated discovery with its scope, verbs, short names and subresources',
  applies: () => true,
  async run (s, api) {
    const url = s.served.group === '' ? '/api' : '/apis'
    const list = await document(api, url, aggregatedMediaType('v2'))
    assert.equal(list.kind, 'APIGroupDiscoveryList')
    const version = (list.items as AnyObject[]).find(g => g.metadata.name === s.served.group)?.versions?.find((v: AnyObject) => v.version === s.served.version)
    assert.ok(version, `${s.served.apiVersion} not in the aggregated ${url}`)
    const entry = (version.resources as AnyObject[]).find(r => r.resource === s.served.plural)
    assert.ok(entry, `${s.served.plural} not under ${s.served.apiVersion}`)
    assert.deepEqual(entry.responseKind, gvk(s))
    assert.equal(entry.scope, s.served.namespaced ? 'Namespaced' : 'Cluster')
    assert.equal(entry.singularResource, s.served.singular)
    assert.deepEqual(sorted(entry.verbs), sorted(s.served.verbs))
    assert.deepEqual(sorted(entry.shortNames), sorted(s.served.shortNames))
    assert.deepEqual(sorted((entry.subresources ?? []).map((r: AnyObject) => r.subresource)), sorted(Object.keys(s.served.subresources)))
  }
}

export const openApiV2: Behaviour = {
  name: 'has a definition in /openapi/v2',
  applies: () => true,
  async run (s, api) {
    const doc = await document(api, '/openapi/v2')
    const found = Object.values(doc.definitions as Record<string, AnyObject>).some(d => namesKind(s, d['x-kubernetes-group-version-kind']))
    assert.ok(found, `no definition names ${JSON.stringify(gvk(s))}`)
  }
}

export const openApiV3: Behaviour = {
  name: 'has its paths in /openapi/v3',
  applies: () => true,
  async run (s, api) {
    const index = await document(api, '/openapi/v3')
    const entry = index.paths[s.groupVersionPath.slice(1)]
    assert.ok(entry, `${s.groupVersionPath} not in the /openapi/v3 index`)
    const doc = await document(api, entry.serverRelativeURL)
    const prefix = `${s.groupVersionPath}${s.served.namespaced ? '/namespaces/{namespace}' : ''}/${s.served.plural}`
    const collection = doc.paths[prefix] as AnyObject | undefined
    assert.ok(collection !== undefined, `no path ${prefix}`)
    assert.ok(Object.values(collection).some(op => namesKind(s, op['x-kubernetes-group-version-kind'])), `${prefix} names no operation on ${s.served.kind}`)
    if (s.served.verbs.includes('get')) assert.ok(doc.paths[`${prefix}/{name}`]?.get !== undefined, `no GET ${prefix}/{name}`)
    assert.ok(Object.values(doc.components.schemas as Record<string, AnyObject>).some(d => namesKind(s, d['x-kubernetes-group-version-kind'])),
      `no schema names ${JSON.stringify(gvk(s))}`)
  }
}
