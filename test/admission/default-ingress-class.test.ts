// DefaultIngressClass: the default class on create, the legacy annotation and an explicit class
// respected, refusal with several defaults, updates untouched, off when disabled.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { buildTestApp } from '../helpers/app.js'
import { ANNOTATIONS } from '../../resources/naming.js'

const classes = '/apis/networking.svc.io/v1/ingressclasses'
const ingresses = '/apis/networking.svc.io/v1/namespaces/default/ingresses'
const spec = (extra: Record<string, unknown> = {}) => ({ defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...extra })

describe('DefaultIngressClass', () => {
  const app = suiteApp()
  const ingress = (name: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>) =>
    app().request({ method: 'POST', url: ingresses, payload: { metadata: { name, annotations }, spec: spec(extra) } })
  const ingressClass = async (name: string, isDefault: boolean) => {
    const res = await app().request({ method: 'POST', url: classes, payload: { metadata: { name, annotations: { [ANNOTATIONS.defaultIngressClass]: String(isDefault) } }, spec: { controller: 'example.com/ingress' } } })
    assert.equal(res.statusCode, 201, res.body)
  }

  it('is on by default', () => {
    assert.ok(app().app.admission.enabled().includes('DefaultIngressClass'))
  })

  it('leaves an ingress without class alone while no default exists', async () => {
    await ingressClass('internal', false)
    const res = await ingress('none')
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.ingressClassName, undefined)
  })

  it('gives an ingress without class the default class', async () => {
    await ingressClass('nginx', true)
    const res = await ingress('gets-default')
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.ingressClassName, 'nginx')
  })

  it('keeps a class the ingress names, and one the legacy annotation names', async () => {
    assert.equal((await ingress('named', { ingressClassName: 'internal' })).json().spec.ingressClassName, 'internal')
    const annotated = await ingress('annotated', {}, { [ANNOTATIONS.ingressClass]: 'internal' })
    assert.equal(annotated.statusCode, 201, annotated.body)
    assert.equal(annotated.json().spec.ingressClassName, undefined)
  })

  it('ignores updates', async () => {
    const res = await app().request({ method: 'PUT', url: `${ingresses}/none`, payload: { metadata: { name: 'none', labels: { a: 'b' } }, spec: spec() } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().spec.ingressClassName, undefined)
  })

  it('refuses an ingress without class while several defaults exist', async () => {
    await ingressClass('traefik', true)
    const res = await ingress('ambiguous')
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().reason, 'Forbidden')
    assert.equal(res.json().message, 'ingresses.networking.svc.io "ambiguous" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed')
    assert.equal((await ingress('explicit', { ingressClassName: 'traefik' })).statusCode, 201)
  })

  it('is off when disabled', async (t) => {
    const other = await buildTestApp(t, { admission: { disable: ['DefaultIngressClass'] } })
    await other.request({ method: 'POST', url: classes, payload: { metadata: { name: 'nginx', annotations: { [ANNOTATIONS.defaultIngressClass]: 'true' } }, spec: { controller: 'example.com/ingress' } } })
    const res = await other.request({ method: 'POST', url: ingresses, payload: { metadata: { name: 'i' }, spec: spec() } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.ingressClassName, undefined)
  })
})
