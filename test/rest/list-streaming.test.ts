// Large lists go out streamed in chunks; the bytes are the ones the unstreamed answer had.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { listStreaming } from '../../plugins/rest/encode.js'
import { ProtobufCodec } from '../../plugins/protobuf/codec.js'

const CM = '/api/v1/namespaces/default/configmaps'
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json'
const PROTOBUF = 'application/vnd.kubernetes.protobuf,application/json'

test('streamed and unstreamed lists answer the same bytes: JSON, Table, metadata, protobuf', async (t) => {
  // Age cells depend on the clock: both answers read the same one.
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() + 3_600_000 })
  const app = await buildTestApp(t)
  for (let i = 0; i < 40; i++) {
    const res = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: `cm-${i}`, labels: { n: String(i) } }, data: { text: `é ${'x'.repeat(2000)} ${i}` } } })
    assert.equal(res.statusCode, 201, res.body)
  }
  const before = listStreaming.minChars
  t.after(() => { listStreaming.minChars = before; listStreaming.keptPages = true })
  const cases: Array<[string, string]> = [
    [CM, 'application/json'],
    [`${CM}?limit=25`, 'application/json'],
    ['/api/v1/configmaps', 'application/json'],
    [`${CM}?labelSelector=n`, 'application/json'],
    [CM, TABLE],
    [`${CM}?includeObject=Object`, TABLE],
    [`${CM}?limit=7`, TABLE],
    [CM, 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json'],
    [`${CM}?limit=9`, 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io'],
    [CM, PROTOBUF],
    [`${CM}?limit=25`, PROTOBUF],
    ['/api/v1/configmaps', PROTOBUF],
    [`${CM}?labelSelector=n`, PROTOBUF],
    [`${CM}?labelSelector=n%3D3`, PROTOBUF]
  ]
  const inChunks = t.mock.method(ProtobufCodec.prototype, 'listInChunks')
  for (const [url, accept] of cases) {
    // Made afresh, whole; then streamed, made afresh; then from the page the cache keeps, whole and streamed.
    listStreaming.keptPages = false
    listStreaming.minChars = Infinity
    const whole = await app.request({ method: 'GET', url, headers: { accept } })
    for (const [minChars, keptPages] of [[Infinity, true], [0, true]] as const) {
      listStreaming.minChars = minChars
      listStreaming.keptPages = keptPages
      const kept = await app.request({ method: 'GET', url, headers: { accept } })
      assert.equal(kept.statusCode, 200, kept.body)
      assert.equal(kept.headers['content-type'], whole.headers['content-type'], `${url} ${accept}`)
      assert.ok(kept.rawPayload.equals(whole.rawPayload), `${url} ${accept}: the same bytes from a kept page (${minChars})`)
    }
    listStreaming.keptPages = false
    listStreaming.minChars = 0
    const chunkedBefore = inChunks.mock.callCount()
    const streamed = await app.request({ method: 'GET', url, headers: { accept } })
    assert.equal(whole.statusCode, 200, whole.body)
    assert.equal(streamed.statusCode, 200, streamed.body)
    assert.equal(streamed.headers['content-type'], whole.headers['content-type'], `${url} ${accept}`)
    assert.ok(streamed.rawPayload.equals(whole.rawPayload), `${url} ${accept}: the same bytes`)
    assert.ok(whole.rawPayload.length > 0)
    if (accept === PROTOBUF) {
      // Protobuf's envelope states its length first, so both answers carry it; the streamed one was written in chunks.
      assert.equal(inChunks.mock.callCount(), chunkedBefore + 1, `${url} streamed`)
      assert.equal(streamed.headers['content-length'], whole.headers['content-length'])
      assert.ok(streamed.rawPayload.subarray(0, 4).equals(Buffer.from('k8s\0')), `${url}: a protobuf answer`)
    } else {
      // The JSON forms were streamed: no length known up front.
      assert.equal(streamed.headers['content-length'], undefined, `${url} ${accept} streamed`)
      assert.ok(whole.headers['content-length'] !== undefined)
    }
  }
})

test('a namespace listed again answers from its kept bytes: the bytes a fresh list has, and never a stale one', async (t) => {
  const app = await buildTestApp(t)
  const create = async (name: string, ns = 'default'): Promise<void> => {
    const res = await app.request({ method: 'POST', url: `/api/v1/namespaces/${ns}/configmaps`, payload: { metadata: { name, labels: { all: 'yes' } }, data: { text: `ü ${'y'.repeat(3000)} ${name}` } } })
    assert.equal(res.statusCode, 201, res.body)
  }
  await app.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'other' } } })
  for (let i = 0; i < 120; i++) await create(`cm-${i}`)
  const before = listStreaming.minChars
  t.after(() => { listStreaming.minChars = before })
  // A selector every item matches, each time spelled anew (a page is kept by its selection's
  // text), reads them afresh: the kept answer must be its bytes.
  let spelling = 0
  const fresh = async (url: string): Promise<Buffer> => (await app.request({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}labelSelector=${encodeURIComponent(`all,!absent-${spelling++}`)}` })).rawPayload
  const names = (body: Buffer): string[] => (JSON.parse(body.toString()) as { items: Array<{ metadata: { name: string } }> }).items.map(i => i.metadata.name)
  for (const minChars of [before, Infinity]) {
    listStreaming.minChars = minChars
    for (const url of [CM, `${CM}?limit=50`]) {
      const first = await app.request({ method: 'GET', url })
      const again = await app.request({ method: 'GET', url })
      assert.equal(first.statusCode, 200)
      assert.ok(again.rawPayload.equals(first.rawPayload), `${url}: the same answer again`)
      if (!url.includes('limit')) assert.ok(first.rawPayload.equals(await fresh(url)), `${url}: the bytes of a list read afresh`)
      assert.equal(first.headers['content-type'], 'application/json; charset=utf-8')
    }
  }
  listStreaming.minChars = before
  const listed = await app.request({ method: 'GET', url: CM })
  // A write elsewhere leaves the answer's items as they were (its resourceVersion is newer).
  await create('elsewhere', 'other')
  const afterOther = await app.request({ method: 'GET', url: CM })
  assert.deepEqual(names(afterOther.rawPayload), names(listed.rawPayload))
  assert.ok(afterOther.rawPayload.equals(await fresh(CM)))
  // A create, an update and a delete in the namespace: each shows at once.
  await create('zz-new')
  assert.deepEqual(names((await app.request({ method: 'GET', url: CM })).rawPayload).slice(-1), ['zz-new'])
  const patched = await app.request({ method: 'PATCH', url: `${CM}/cm-5`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { data: { text: 'changed' } } })
  assert.equal(patched.statusCode, 200, patched.body)
  const afterPatch = JSON.parse((await app.request({ method: 'GET', url: CM })).body) as { items: Array<{ metadata: { name: string }, data: { text: string } }> }
  assert.equal(afterPatch.items.find(i => i.metadata.name === 'cm-5')!.data.text, 'changed')
  assert.equal((await app.request({ method: 'DELETE', url: `${CM}/cm-7` })).statusCode, 200)
  const afterDelete = await app.request({ method: 'GET', url: CM })
  assert.ok(!names(afterDelete.rawPayload).includes('cm-7'))
  assert.ok(afterDelete.rawPayload.equals(await fresh(CM)))
  // Protobuf from the kept page: the items' encoding is kept too, and a change shows at once.
  const protobufNames = async (): Promise<string[]> => {
    const res = await app.request({ method: 'GET', url: CM, headers: { accept: PROTOBUF } })
    assert.equal(res.headers['content-type'], 'application/vnd.kubernetes.protobuf')
    return ((app.app.protobuf.decode(res.rawPayload) as { items: Array<{ metadata: { name: string } }> }).items).map(i => i.metadata.name)
  }
  assert.deepEqual(await protobufNames(), names((await app.request({ method: 'GET', url: CM })).rawPayload))
  await create('zz-protobuf')
  assert.deepEqual((await protobufNames()).slice(-1), ['zz-protobuf'])
  // A selected list is kept too, and a relabel shows at once.
  const selected = `${CM}?labelSelector=all%3Dyes`
  const kept = await app.request({ method: 'GET', url: selected })
  assert.ok((await app.request({ method: 'GET', url: selected })).rawPayload.equals(kept.rawPayload))
  const relabel = await app.request({ method: 'PATCH', url: `${CM}/cm-9`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { metadata: { labels: { all: 'no' } } } })
  assert.equal(relabel.statusCode, 200, relabel.body)
  assert.ok(!names((await app.request({ method: 'GET', url: selected })).rawPayload).includes('cm-9'))
  // A page's continue token and count agree with a fresh read's.
  const page = JSON.parse((await app.request({ method: 'GET', url: `${CM}?limit=50` })).body) as { metadata: { continue: string, remainingItemCount: number } }
  assert.equal(page.metadata.remainingItemCount, 120 - 1 + 2 - 50)
  const next = JSON.parse((await app.request({ method: 'GET', url: `${CM}?limit=50&continue=${encodeURIComponent(page.metadata.continue)}` })).body) as { items: unknown[] }
  assert.equal(next.items.length, 50)
})

test('a Table listed again answers each time with the ages of that moment, from its kept rows', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z')
  t.mock.timers.enable({ apis: ['Date'], now })
  const app = await buildTestApp(t)
  t.after(() => { listStreaming.keptPages = true })
  for (let i = 0; i < 12; i++) {
    const res = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: `cm-${i}` }, data: { i: String(i) } } })
    assert.equal(res.statusCode, 201, res.body)
  }
  const CRONJOBS = '/apis/batch/v1/namespaces/default/cronjobs'
  const cronJob = { metadata: { name: 'nightly' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox:1.36' }] } } } } } }
  assert.equal((await app.request({ method: 'POST', url: CRONJOBS, payload: cronJob })).statusCode, 201)
  const scheduled = await app.request({ method: 'PATCH', url: `${CRONJOBS}/nightly/status`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { status: { lastScheduleTime: new Date(now - 60_000).toISOString() } } })
  assert.equal(scheduled.statusCode, 200, scheduled.body)

  const answer = async (url: string, accept: string, kept: boolean): Promise<Buffer> => {
    listStreaming.keptPages = kept
    const res = await app.request({ method: 'GET', url, headers: { accept } })
    assert.equal(res.statusCode, 200, res.body)
    return res.rawPayload
  }
  const cells = (body: Buffer): unknown[][] => (JSON.parse(body.toString()) as { rows: Array<{ cells: unknown[] }> }).rows.map(r => r.cells)
  const forms: Array<[string, string]> = [[CM, TABLE], [`${CM}?limit=5`, TABLE], [`${CM}?includeObject=None`, TABLE], [`${CM}?includeObject=Object`, TABLE], [CRONJOBS, TABLE]]
  const seen: Buffer[] = []
  for (const advance of [0, 90 * 60_000, 3 * 86_400_000]) {
    now += advance
    t.mock.timers.setTime(now)
    for (const [url, accept] of forms) {
      const fresh = await answer(url, accept, false)
      await answer(url, accept, true)
      const kept = await answer(url, accept, true)
      assert.deepEqual(cells(kept), cells(fresh), `${url} after ${advance} ms`)
      assert.ok(kept.equals(fresh), `${url} after ${advance} ms: the kept rows answer what fresh ones do`)
      if (url === CM) seen.push(kept)
    }
  }
  // The ages moved with the clock: Age is the last cell.
  assert.deepEqual(seen.map(b => cells(b)[0]!.at(-1)), ['0s', '90m', '3d1h'])
  const cron = cells(await answer(CRONJOBS, TABLE, true))[0]!
  assert.equal(cron[5], '3d1h', 'Last Schedule reads the clock at each answer')
})
