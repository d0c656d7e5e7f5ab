// dryRun=All: every write answers as it would have, and nothing is stored.
import assert from 'node:assert/strict'
import type { Behaviour } from './behaviour.js'
import { stores } from './behaviour.js'
import { expectCode, getJson, patch, readThenWrite, withQuery } from './client.js'
import { itemUrl, renamed } from './subject.js'

const DRY_RUN = { dryRun: 'All' }
const DRY_LABEL = 'conformance/dry-run'

export const dryRunCreate: Behaviour = {
  name: 'stores nothing on a dry-run create',
  applies: (s) => stores(s, 'create', 'get'),
  async run (s, api) {
    const name = `${s.name}-dry`
    const res = await api.request({ method: 'POST', url: withQuery(s.collection, DRY_RUN), payload: renamed(s, name) })
    expectCode(res, 201)
    assert.equal(res.json().metadata.name, name)
    expectCode(await api.request({ method: 'GET', url: itemUrl(s, name) }), 404)
  }
}

export const dryRunUpdate: Behaviour = {
  name: 'stores nothing on a dry-run update or patch',
  applies: (s) => stores(s, 'create', 'get', 'update', 'patch'),
  async run (s, api) {
    const { res: put } = await readThenWrite(api, itemUrl(s), (current) => api.request({
      method: 'PUT',
      url: withQuery(itemUrl(s), DRY_RUN),
      payload: { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, [DRY_LABEL]: 'put' } } }
    }))
    expectCode(put, 200)
    assert.equal(put.json().metadata.labels[DRY_LABEL], 'put')
    const patched = await patch(api, withQuery(itemUrl(s), DRY_RUN), 'mergePatch', { metadata: { labels: { [DRY_LABEL]: 'patch' } } })
    expectCode(patched, 200)
    assert.equal(patched.json().metadata.labels[DRY_LABEL], 'patch')
    const after = await getJson(api, itemUrl(s))
    assert.equal(after.metadata.labels?.[DRY_LABEL], undefined)
  }
}

export const dryRunDelete: Behaviour = {
  name: 'stores nothing on a dry-run delete',
  applies: (s) => stores(s, 'create', 'get', 'delete'),
  async run (s, api) {
    expectCode(await api.request({ method: 'DELETE', url: withQuery(itemUrl(s), DRY_RUN) }), 200, 202)
    const after = await getJson(api, itemUrl(s))
    assert.equal(after.metadata.deletionTimestamp, undefined)
  }
}
