// Watch: the create the lifecycle made arrives as an event on a watch from before it.
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.js'
import type { AnyObject } from '../../resources/define.js'
import type { Behaviour } from './behaviour.js'
import { stores } from './behaviour.js'
import { expectCode, withQuery } from './client.js'

interface WatchEvent { type: string, object: AnyObject }

/**
 * Reads a JSON watch stream until an event `wanted` accepts, then ends it; a watch is open-ended,
 * so the answer is read as a stream rather than waited for.
 */
export async function watchFor (api: TestApp, url: string, wanted: (e: WatchEvent) => boolean, timeoutMs = 10_000): Promise<WatchEvent> {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    const res = await api.request({ method: 'GET', url, payloadAsStream: true, signal: abort.signal })
    expectCode(res, 200)
    let pending = ''
    for await (const chunk of res.stream()) {
      pending += String(chunk)
      for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
        const line = pending.slice(0, end).trim()
        pending = pending.slice(end + 1)
        if (line === '') continue
        const event = JSON.parse(line) as WatchEvent
        if (wanted(event)) return event
      }
    }
    throw new Error(`the watch ${url} ended without the event`)
  } finally {
    clearTimeout(timer)
    abort.abort()
  }
}

export const watch: Behaviour = {
  name: 'watches its create arrive',
  applies: (s) => stores(s, 'create', 'list', 'watch'),
  async run (s, api) {
    assert.ok(s.state.listedBeforeCreate !== undefined && s.state.created !== undefined, 'the create behaviour ran first')
    const url = withQuery(s.collection, { watch: 'true', resourceVersion: s.state.listedBeforeCreate, timeoutSeconds: '30' })
    const event = await watchFor(api, url, e => e.object?.metadata?.name === s.name)
    assert.equal(event.type, 'ADDED')
    assert.deepEqual(event.object, s.state.created)
  }
}
