// CustomResourceDefinition: the reference's validation (field paths and messages), defaults,
// storedVersions and the cleanup finalizer on create.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'
import { validateCrd, validateStoredVersions } from '../../resources/customresourcedefinitions.js'
import { fieldErrorText } from '../../resources/status.js'
import { FINALIZERS } from '../../resources/naming.js'

type Obj = Record<string, any>
const url = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'

const objectSchema = (properties: Obj = { spec: { type: 'object', properties: { replicas: { type: 'integer' }, name: { type: 'string' } } } }) =>
  ({ openAPIV3Schema: { type: 'object', properties } })

function crd (edit: (c: Obj) => void = () => {}): Obj {
  const c: Obj = {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: objectSchema() }],
      conversion: { strategy: 'None' }
    }
  }
  edit(c)
  return c
}
const v0 = (c: Obj): Obj => c.spec.versions[0]
const root = (c: Obj): Obj => v0(c).schema.openAPIV3Schema
// One version (or identical schemas): the reference's internal form holds the schema at spec.validation.
const S = 'spec.validation.openAPIV3Schema'

interface Case { name: string, edit: (c: Obj) => void, want?: string }

// `want` is one error as the reference prints it (`<field>: <text>`); absent: valid.
const cases: Case[] = [
  { name: 'a valid definition', edit: () => {} },
  { name: 'a name other than plural.group', edit: c => { c.metadata.name = 'gadgets.example.com' }, want: 'metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group' },
  { name: 'a group without a dot', edit: c => { c.spec.group = 'example'; c.metadata.name = 'widgets.example' }, want: 'spec.group: Invalid value: "example": should be a domain with at least one dot' },
  { name: 'no group', edit: c => { c.spec.group = '' }, want: 'spec.group: Required value' },
  { name: 'an unknown scope', edit: c => { c.spec.scope = 'Global' }, want: 'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"' },
  { name: 'no storage version', edit: c => { v0(c).storage = false }, want: 'must have exactly one version marked as storage version' },
  { name: 'two storage versions', edit: c => { c.spec.versions.push({ ...v0(c), name: 'v2' }) }, want: 'must have exactly one version marked as storage version' },
  { name: 'two versions of one name', edit: c => { c.spec.versions.push({ ...v0(c), storage: false }) }, want: 'must contain unique version names' },
  { name: 'a version name that is not a DNS-1035 label', edit: c => { v0(c).name = '1v' }, want: "spec.versions[0].name: Invalid value: \"1v\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')" },
  { name: 'an upper-case plural', edit: c => { c.spec.names.plural = 'Widgets'; c.metadata.name = 'Widgets.example.com' }, want: 'spec.names.plural: Invalid value: "Widgets": a DNS-1035 label' },
  { name: 'a kind with a dot', edit: c => { c.spec.names.kind = 'Wid.get' }, want: 'spec.names.kind: Invalid value: "Wid.get": may have mixed case, but should otherwise match: a DNS-1035 label' },
  { name: 'listKind equal to kind', edit: c => { c.spec.names.listKind = 'Widget' }, want: 'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same' },
  { name: 'a bad short name', edit: c => { c.spec.names.shortNames = ['w_d'] }, want: 'spec.names.shortNames[0]: Invalid value: "w_d"' },
  { name: 'a bad category', edit: c => { c.spec.names.categories = ['All'] }, want: 'spec.names.categories[0]: Invalid value: "All"' },
  { name: 'no kind', edit: c => { c.spec.names.kind = '' }, want: 'spec.names.kind: Required value' },
  { name: 'a deprecation warning on a current version', edit: c => { v0(c).deprecationWarning = 'old' }, want: 'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions' },
  { name: 'a deprecation warning over 256 characters', edit: c => { v0(c).deprecated = true; v0(c).deprecationWarning = 'x'.repeat(257) }, want: 'must be <= 256 characters long' },
  { name: 'a deprecated version with its warning', edit: c => { v0(c).deprecated = true; v0(c).deprecationWarning = 'use v2' } },
  { name: 'a version without schema', edit: c => { delete v0(c).schema }, want: 'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required' },
  { name: 'preserveUnknownFields true', edit: c => { c.spec.preserveUnknownFields = true }, want: 'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead' },
  { name: 'a field without type', edit: c => { root(c).properties.spec.properties.size = { description: 'how big' } }, want: `${S}.properties[spec].properties[size].type: Required value: must not be empty for specified object fields` },
  { name: 'array items without type', edit: c => { root(c).properties.tags = { type: 'array', items: {} } }, want: `${S}.properties[tags].items.type: Required value: must not be empty for specified array items` },
  { name: 'an array without items', edit: c => { root(c).properties.tags = { type: 'array' } }, want: `${S}.properties[tags].items: Required value: must be specified` },
  { name: 'a root that is not an object', edit: c => { root(c).type = 'string' }, want: `${S}.type: Invalid value: "string": must be object at the root` },
  { name: 'a pattern in Go\'s syntax (inline flags)', edit: c => { root(c).properties.spec.properties.size = { type: 'string', pattern: '^(?i)small|large$' } } },
  { name: 'a pattern that does not compile', edit: c => { root(c).properties.spec.properties.size = { type: 'string', pattern: 'a(' } }, want: `${S}.properties[spec].properties[size].pattern: Invalid value: "a(": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`a(\`` },
  { name: 'an untyped field preserving unknown fields', edit: c => { root(c).properties.raw = { 'x-kubernetes-preserve-unknown-fields': true } } },
  { name: 'an int-or-string field', edit: c => { root(c).properties.port = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } },
  { name: 'x-kubernetes-preserve-unknown-fields false', edit: c => { root(c).properties.spec['x-kubernetes-preserve-unknown-fields'] = false }, want: `${S}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined` },
  { name: 'metadata with labels at the root', edit: c => { root(c).properties.metadata = { type: 'object', properties: { labels: { type: 'object' } } } }, want: `${S}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified` },
  { name: 'metadata restricting the name', edit: c => { root(c).properties.metadata = { type: 'object', properties: { name: { type: 'string', maxLength: 40 } } } } },
  { name: 'properties beside additionalProperties', edit: c => { root(c).properties.spec.additionalProperties = { type: 'string' } }, want: `${S}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive` },
  { name: 'additionalProperties at the root', edit: c => { delete root(c).properties; root(c).additionalProperties = { type: 'string' } }, want: `${S}.additionalProperties: Forbidden: must not be used at the root` },
  { name: 'uniqueItems', edit: c => { root(c).properties.tags = { type: 'array', uniqueItems: true, items: { type: 'string' } } }, want: `${S}.properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic` },
  { name: 'a $ref', edit: c => { root(c).properties.spec.$ref = '#/definitions/x' }, want: `${S}.properties[spec].$ref: Forbidden: $ref is not supported` },
  { name: 'a type in anyOf', edit: c => { root(c).properties.spec.anyOf = [{ type: 'object' }] }, want: `${S}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural` },
  { name: 'a field only a junctor declares', edit: c => { root(c).properties.spec.anyOf = [{ properties: { size: { minimum: 1 } } }] }, want: `${S}.properties[spec].properties[size]: Required value: because it is defined in ${S}.properties[spec].anyOf[0].properties[size]` },
  { name: 'a junctor constraining a declared field', edit: c => { root(c).properties.spec.anyOf = [{ required: ['name'] }, { properties: { replicas: { minimum: 1 } } }] } },
  { name: 'an embedded resource that is not an object', edit: c => { root(c).properties.template = { type: 'string', 'x-kubernetes-embedded-resource': true } }, want: `${S}.properties[template].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true` },
  { name: 'an embedded resource without properties', edit: c => { root(c).properties.template = { type: 'object', 'x-kubernetes-embedded-resource': true } }, want: `${S}.properties[template].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields` },
  { name: 'an unknown list type', edit: c => { root(c).properties.tags = { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } } }, want: `${S}.properties[tags].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"` },
  { name: 'a map list without keys', edit: c => { root(c).properties.ports = { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { port: { type: 'integer' } } } } }, want: `${S}.properties[ports].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map` },
  { name: 'a map list key that is no item property', edit: c => { root(c).properties.ports = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { port: { type: 'integer' } } } } }, want: 'entries must all be names of item properties' },
  { name: 'map keys on a set', edit: c => { root(c).properties.ports = { type: 'array', 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': ['port'], items: { type: 'integer' } } }, want: `${S}.properties[ports].x-kubernetes-list-type: Invalid value: "set": must be map if x-kubernetes-list-map-keys is non-empty` },
  { name: 'a list type on an object', edit: c => { root(c).properties.spec['x-kubernetes-list-type'] = 'atomic' }, want: 'must only be used on array types' },
  { name: 'a map type on a string', edit: c => { root(c).properties.spec.properties.name['x-kubernetes-map-type'] = 'atomic' }, want: `${S}.properties[spec].properties[name].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified` },
  { name: 'a status subresource beside a root title', edit: c => { v0(c).subresources = { status: {} }; root(c).anyOf = [{ required: ['spec'] }] }, want: `${S}: Invalid value` },
  { name: 'a scale subresource', edit: c => { v0(c).subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } } } },
  { name: 'a spec replicas path outside .spec', edit: c => { v0(c).subresources = { scale: { specReplicasPath: '.replicas', statusReplicasPath: '.status.replicas' } } }, want: 'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".replicas": should be a json path under .spec' },
  { name: 'a status replicas path that is not a json path', edit: c => { v0(c).subresources = { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: 'status.replicas' } } }, want: 'spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .' },
  { name: 'a printer column of an unknown type', edit: c => { v0(c).additionalPrinterColumns = [{ name: 'Size', type: 'float', jsonPath: '.spec.replicas' }] }, want: 'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string' },
  { name: 'a printer column of an unknown format', edit: c => { v0(c).additionalPrinterColumns = [{ name: 'Size', type: 'integer', format: 'big', jsonPath: '.spec.replicas' }] }, want: 'must be one of byte,date,date-time,double,float,int32,int64,password' },
  { name: 'a printer column without path', edit: c => { v0(c).additionalPrinterColumns = [{ name: 'Size', type: 'integer', jsonPath: '' }] }, want: 'spec.versions[0].additionalPrinterColumns[0].JSONPath: Required value' },
  { name: 'selectable fields', edit: c => { v0(c).selectableFields = [{ jsonPath: '.spec.name' }, { jsonPath: '.spec.replicas' }] } },
  { name: 'a selectable object', edit: c => { v0(c).selectableFields = [{ jsonPath: '.spec' }] }, want: 'must point to a field of type string, boolean or integer' },
  { name: 'a selectable field twice', edit: c => { v0(c).selectableFields = [{ jsonPath: '.spec.name' }, { jsonPath: '.spec.name' }] }, want: 'spec.versions[0].selectableFields[1].jsonPath: Duplicate value: ".spec.name"' },
  { name: 'nine selectable fields', edit: c => { v0(c).selectableFields = Array.from({ length: 9 }, (_, i) => ({ jsonPath: `.spec.f${i}` })) }, want: 'spec.versions[0].selectableFields: Too many' },
  { name: 'an unknown conversion strategy', edit: c => { c.spec.conversion = { strategy: 'Magic' } }, want: 'spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"' },
  { name: 'a webhook conversion without client config', edit: c => { c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } } }, want: 'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook' },
  { name: 'a webhook conversion with url and service', edit: c => { c.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x.example.com', service: { namespace: 'ns', name: 'svc' } } } } }, want: 'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required' },
  { name: 'a webhook conversion without review versions', edit: c => { c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example.com' } } } }, want: 'spec.conversion.conversionReviewVersions: Required value' },
  { name: 'only unknown review versions', edit: c => { c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example.com' }, conversionReviewVersions: ['v2'] } } }, want: 'spec.conversion.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1' },
  { name: 'a webhook conversion', edit: c => { c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/convert' } }, conversionReviewVersions: ['v1', 'v1beta1'] } } } },
  { name: 'a client config under None', edit: c => { c.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://x.example.com' } } } }, want: 'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook' }
]

describe('customresourcedefinitions: validation', () => {
  for (const c of cases) {
    it(`${c.want === undefined ? 'accepts' : 'rejects'} ${c.name}`, () => {
      const texts = validateCrd(crd(c.edit)).map(e => `${e.field}: ${fieldErrorText(e)}`)
      if (c.want === undefined) assert.deepEqual(texts, [])
      else assert.ok(texts.some(t => t.includes(c.want!)), `no "${c.want}" in ${JSON.stringify(texts, null, 1)}`)
    })
  }

  it('requires the storage version in status.storedVersions and every stored version in spec', () => {
    const c = crd(x => { x.status = { storedVersions: ['v1beta1'] } })
    const texts = validateStoredVersions(c).map(e => `${e.field}: ${fieldErrorText(e)}`)
    assert.deepEqual(texts, [
      'status.storedVersions: Invalid value: "v1": must have the storage version v1',
      'status.storedVersions[0]: Invalid value: "v1beta1": must appear in spec.versions'
    ])
  })
})

describe('customresourcedefinitions: the API', () => {
  const app = suiteApp()

  it('defaults the names and conversion, records the storage version and adds the cleanup finalizer on create', async () => {
    const body = crd(c => { delete c.spec.names.singular; delete c.spec.names.listKind; delete c.spec.conversion })
    const res = await app().request({ method: 'POST', url, payload: body })
    assert.equal(res.statusCode, 201, res.body)
    const got = res.json()
    assert.equal(got.spec.names.singular, 'widget')
    assert.equal(got.spec.names.listKind, 'WidgetList')
    assert.deepEqual(got.spec.conversion, { strategy: 'None' })
    assert.deepEqual(got.status.storedVersions, ['v1'])
    assert.deepEqual(got.metadata.finalizers, [FINALIZERS.customResourceCleanup])
  })

  it('answers 422 with the reference message, also under the upstream group name', async () => {
    for (const base of [url, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions']) {
      const res = await app().request({ method: 'POST', url: base, payload: crd(c => { c.metadata.name = 'other.example.com' }) })
      assertInvalid(res, 'metadata.name', 'FieldValueInvalid', 'must be spec.names.plural+"."+spec.group')
    }
  })

  it('keeps spec.group and spec.names.plural, and appends a new storage version to storedVersions', async () => {
    const name = 'gizmos.example.com'
    const body = crd(c => { c.metadata.name = name; c.spec.names = { plural: 'gizmos', kind: 'Gizmo' } })
    assert.equal((await app().request({ method: 'POST', url, payload: body })).statusCode, 201)
    const current = (await app().request({ method: 'GET', url: `${url}/${name}` })).json()
    // Unconditional updates: the controller writes the status meanwhile.
    delete current.metadata.resourceVersion
    const moved = structuredClone(current)
    moved.spec.names.plural = 'gadgets'
    assertInvalid(await app().request({ method: 'PUT', url: `${url}/${name}`, payload: moved }), 'spec.names.plural', 'FieldValueInvalid', 'field is immutable')
    const next = structuredClone(current)
    next.spec.versions = [{ ...next.spec.versions[0], storage: false }, { ...next.spec.versions[0], name: 'v2', storage: true }]
    const res = await app().request({ method: 'PUT', url: `${url}/${name}`, payload: next })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().status.storedVersions, ['v1', 'v2'])
  })
})
