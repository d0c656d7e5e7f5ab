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
  t.after(() => { listStreaming.minChars = before })
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
    listStreaming.minChars = Infinity
    const whole = await app.request({ method: 'GET', url, headers: { accept } })
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
