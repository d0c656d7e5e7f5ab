// Content negotiation: which representation an Accept header asks for, in its order of preference.
import { notAcceptable } from '../../resources/status.js'
import { MEDIA_TYPES, TABLE_GROUPS } from '../../resources/naming.js'

export type Representation =
  | { as: 'json' }
  | { as: 'yaml' }
  | { as: 'Table', apiVersion: string }
  | { as: 'PartialObjectMetadata', apiVersion: string }
  /** The kind's protobuf message in the envelope; `mediaType` is the name the client asked for. */
  | { as: 'protobuf', mediaType: string }

interface MediaRange { type: string, params: Record<string, string>, q: number }

function parseAccept (header: string): MediaRange[] {
  return header.split(',').map(raw => {
    const [type, ...rest] = raw.split(';').map(s => s.trim())
    const params: Record<string, string> = {}
    for (const p of rest) {
      const i = p.indexOf('=')
      if (i > 0) params[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim().replace(/^"|"$/g, '')
    }
    const q = params.q === undefined ? 1 : Number(params.q)
    return { type: (type ?? '').toLowerCase(), params, q: Number.isNaN(q) ? 1 : q }
  }).filter(r => r.type !== '' && r.q > 0)
    .map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map(x => x.r)
}

const SUPPORTED = [MEDIA_TYPES.json, MEDIA_TYPES.yaml]
const TABLE_VERSIONS = new Set(['v1', 'v1beta1'])
const PROTOBUF: readonly string[] = [MEDIA_TYPES.protobuf, MEDIA_TYPES.upstreamProtobuf]

/**
 * The first acceptable representation. `transforms` allows Table and metadata-only answers
 * (resource reads); other endpoints speak plain JSON or YAML only. `protobuf` allows the binary
 * envelope (kinds with a message). Throws 406 when nothing fits.
 */
export function negotiate (accept: string | undefined, transforms: boolean, protobuf = false): Representation {
  if (accept === undefined || accept.trim() === '') return { as: 'json' }
  for (const r of parseAccept(accept)) {
    const as = r.params.as
    if (as !== undefined) {
      if (!transforms || (r.type !== MEDIA_TYPES.json && r.type !== '*/*' && r.type !== 'application/*')) continue
      const g = r.params.g ?? ''
      const v = r.params.v ?? ''
      if (!(TABLE_GROUPS as readonly string[]).includes(g) || !TABLE_VERSIONS.has(v)) continue
      if (as === 'Table') return { as: 'Table', apiVersion: `${g}/${v}` }
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { as: 'PartialObjectMetadata', apiVersion: `${g}/${v}` }
      continue
    }
    if (r.type === MEDIA_TYPES.json || r.type === '*/*' || r.type === 'application/*') return { as: 'json' }
    if (r.type === MEDIA_TYPES.yaml) return { as: 'yaml' }
    if (protobuf && PROTOBUF.includes(r.type)) return { as: 'protobuf', mediaType: r.type }
  }
  throw notAcceptable(protobuf ? [...SUPPORTED, ...PROTOBUF] : SUPPORTED)
}
