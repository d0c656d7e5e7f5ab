// Create-only (virtual) kinds answer a create without storing it; every kind refuses the verbs it lacks.
import assert from 'node:assert/strict'
import type { InjectOptions } from 'fastify'
import type { Verb } from '../../resources/define.js'
import { ALL_VERBS } from '../../resources/define.js'
import { MEDIA_TYPES } from '../../resources/naming.js'
import type { Behaviour } from './behaviour.js'
import { expectCode, withQuery } from './client.js'
import { itemUrl, type Subject } from './subject.js'

export const virtualCreate: Behaviour = {
  name: 'answers a create with a status, storing nothing',
  applies: (s) => s.served.virtual !== undefined,
  async run (s, api) {
    const res = await api.request({ method: 'POST', url: s.collection, payload: s.object })
    expectCode(res, 201)
    const answer = res.json()
    assert.equal(answer.apiVersion, s.served.apiVersion)
    assert.equal(answer.kind, s.served.kind)
    assert.ok(answer.status !== undefined && Object.keys(answer.status).length > 0, `no status in ${res.body}`)
    assert.equal(answer.metadata?.uid, undefined, 'nothing was stored, so nothing has a uid')
  }
}

/** The request each verb is, on the subject's collection or its object. */
const REQUESTS: Record<Verb, (s: Subject) => InjectOptions> = {
  get: (s) => ({ method: 'GET', url: itemUrl(s) }),
  list: (s) => ({ method: 'GET', url: s.collection }),
  watch: (s) => ({ method: 'GET', url: withQuery(s.collection, { watch: 'true', timeoutSeconds: '1' }) }),
  create: (s) => ({ method: 'POST', url: s.collection, payload: s.object }),
  update: (s) => ({ method: 'PUT', url: itemUrl(s), payload: s.object }),
  patch: (s) => ({ method: 'PATCH', url: itemUrl(s), headers: { 'content-type': MEDIA_TYPES.mergePatch }, payload: '{}' }),
  delete: (s) => ({ method: 'DELETE', url: itemUrl(s) }),
  deletecollection: (s) => ({ method: 'DELETE', url: s.collection })
}

const lacking = (s: Subject): Verb[] => ALL_VERBS.filter(v => !s.served.verbs.includes(v))

export const refusedVerbs: Behaviour = {
  name: 'refuses the verbs it does not serve',
  applies: (s) => lacking(s).length > 0,
  async run (s, api) {
    for (const verb of lacking(s)) {
      const res = await api.request(REQUESTS[verb](s))
      // 405 where the path serves other methods, 404 where it serves none (an object of a create-only kind).
      expectCode(res, 404, 405)
      assert.equal(res.json().kind, 'Status', `${verb}: ${res.body}`)
    }
  }
}
