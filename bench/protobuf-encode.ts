// What a protobuf list costs per item in process: the items of a list of N stored ConfigMaps
// (1 KiB of data, one managed-fields entry) written by the list encoder
// (plugins/protobuf/list-stream.ts: a measuring pass, then the chunks), beside the same two
// passes without the streaming (`toMessage` and protobufjs's `encode` for the lengths, again for
// the bytes), with JSON.parse and JSON.stringify of the same items as the ceilings. Rounds alternate.
//   npx tsx bench/protobuf-encode.ts [items] [rounds]
import { performance } from 'node:perf_hooks'
import { ProtobufCodec } from '../plugins/protobuf/codec.js'
import { toMessage } from '../plugins/protobuf/convert.js'
import { configMapBody } from './payload.js'

const [count = '20000', rounds = '5'] = process.argv.slice(2)
const codec = await ProtobufCodec.load()
const item = codec.messageOf('v1', 'ConfigMap')!
const stored = Array.from({ length: Number(count) }, (_, i) => {
  const o = JSON.parse(configMapBody(`cm-${i}`, 1024))
  o.metadata = {
    ...o.metadata,
    namespace: 'bench',
    uid: `7a3c1f0e-0000-4000-8000-${String(i).padStart(12, '0')}`,
    resourceVersion: String(1000 + i),
    creationTimestamp: '2026-11-28T10:00:00Z',
    managedFields: [{ manager: 'bench', operation: 'Update', apiVersion: 'v1', time: '2026-11-28T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:payload': {} } } }]
  }
  return JSON.stringify(o)
})

const timed = async (fn: () => unknown): Promise<number> => {
  const t0 = performance.now()
  await fn()
  return performance.now() - t0
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const figures = { list: [] as number[], protobufjs: [] as number[], parse: [] as number[], stringify: [] as number[] }
for (let r = 0; r < Number(rounds); r++) {
  // Fresh item objects each round: the encoder's remembered lengths are per cached object.
  figures.list.push(await timed(async () => {
    const parts = await codec.listInChunks('v1', 'ConfigMapList', { resourceVersion: '5' }, stored.map(json => ({ json })), 64 * 1024)
    for (const chunk of parts!.chunks()) void chunk
  }))
  figures.protobufjs.push(await timed(() => {
    for (const json of stored) void item.encode(toMessage(item, JSON.parse(json))).len
    for (const json of stored) void item.encode(toMessage(item, JSON.parse(json))).finish()
  }))
  let parsed: unknown[] = []
  figures.parse.push(await timed(() => { parsed = stored.map(json => JSON.parse(json)) }))
  figures.stringify.push(await timed(() => JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: parsed })))
}
const ms = (xs: number[]): string => `${median(xs).toFixed(0)} ms`
process.stdout.write(`${count} ConfigMaps, medians of ${rounds} rounds: list encoder ${ms(figures.list)}, two plain passes ${ms(figures.protobufjs)}; JSON.parse of all ${ms(figures.parse)}, ` +
  `JSON.stringify ${ms(figures.stringify)} (the encoder ${(median(figures.list) / median(figures.stringify)).toFixed(2)}x stringify)\n`)
