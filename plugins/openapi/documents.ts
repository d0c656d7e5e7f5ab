// The OpenAPI documents: v3 per group version, v2 for everything, both from the same kinds.
import { createHash } from 'node:crypto'
import type { Resource } from '../../resources/define.js'
import { addResourcePaths, type Paths } from './paths.js'
import { SchemaBuilder } from './schemas.js'

export interface Document { json: string, hash: string }

/** The content hash upstream puts in serverRelativeURL and ETag: SHA-512, upper-case hex. */
export const contentHash = (text: string): string => createHash('sha512').update(text).digest('hex').toUpperCase()

const document = (json: string): Document => ({ json, hash: contentHash(json) })

const sortedKeys = <T>(o: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.keys(o).sort().map(k => [k, o[k]!]))

/** `api/v1` or `apis/<group>/<version>`: the key of a group version in the v3 index. */
export const groupVersionPath = (r: Pick<Resource, 'group' | 'version'>): string =>
  r.group === '' ? `api/${r.version}` : `apis/${r.group}/${r.version}`

/** One v3 document per group version, keyed by its index path. */
export function buildV3 (resources: Resource[], title: string, version: string): Map<string, Document> {
  const byGv = new Map<string, Resource[]>()
  for (const r of resources) byGv.set(groupVersionPath(r), [...(byGv.get(groupVersionPath(r)) ?? []), r])
  const docs = new Map<string, Document>()
  for (const [gv, list] of [...byGv].sort(([a], [b]) => a.localeCompare(b))) {
    const b = new SchemaBuilder('v3')
    const paths: Paths = {}
    for (const r of list) addResourcePaths(b, paths, r)
    b.addShared()
    docs.set(gv, document(JSON.stringify({
      openapi: '3.0.0',
      info: { title, version },
      paths: sortedKeys(paths),
      components: {
        schemas: sortedKeys(b.definitions),
        securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } }
      }
    })))
  }
  return docs
}

/** The Swagger 2.0 document of every kind, as a plain object (the protobuf form is encoded from it). */
export function buildV2 (resources: Resource[], title: string, version: string): Record<string, unknown> {
  const b = new SchemaBuilder('v2')
  const paths: Paths = {}
  for (const r of resources) addResourcePaths(b, paths, r)
  b.addShared()
  return {
    swagger: '2.0',
    info: { title, version },
    paths: sortedKeys(paths),
    definitions: sortedKeys(b.definitions),
    securityDefinitions: { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }]
  }
}

export const v2Document = (doc: Record<string, unknown>): Document => document(JSON.stringify(doc))
