// Pruning (the reference's pruning.PruneWithOptions): fields the schema does not declare are
// removed, except under x-kubernetes-preserve-unknown-fields and the apiVersion, kind and
// metadata of the root and of embedded resources. The removed paths come back sorted, so
// fieldValidation=Strict can refuse them and Warn can name them (`unknown field "spec.foo"`).
import type { JSONSchemaProps } from './types.js'
import { isObject, itemsOf } from './types.js'

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata'])

type Node = JSONSchemaProps | undefined

/** Prunes `obj` in place; `isResourceRoot` keeps the root's type and object meta as the reference. */
export function prune (obj: unknown, schema: Node, isResourceRoot = true): string[] {
  let s = schema
  if (isResourceRoot && s?.['x-kubernetes-embedded-resource'] !== true) s = { ...(s ?? {}), 'x-kubernetes-embedded-resource': true }
  const pruned: string[] = []
  walk(obj, s, '', pruned)
  return pruned.sort()
}

const appendKey = (path: string, k: string): string => path === '' ? k : `${path}.${k}`

function walk (x: unknown, s: Node, path: string, pruned: string[]): void {
  if (s?.['x-kubernetes-preserve-unknown-fields'] === true) {
    skipPrune(x, s, path, pruned)
    return
  }
  if (isObject(x)) {
    if (s === undefined) {
      for (const k of Object.keys(x)) { pruned.push(appendKey(path, k)); delete x[k] }
      return
    }
    for (const k of Object.keys(x)) {
      if (s['x-kubernetes-embedded-resource'] === true && META_FIELDS.has(k)) continue
      if (s.properties !== undefined && Object.hasOwn(s.properties, k)) walk(x[k], s.properties[k], appendKey(path, k), pruned)
      else if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
        walk(x[k], typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined, appendKey(path, k), pruned)
      } else {
        pruned.push(appendKey(path, k))
        delete x[k]
      }
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s)
    x.forEach((v, i) => walk(v, items, `${path}[${i}]`, pruned))
  }
}

function skipPrune (x: unknown, s: JSONSchemaProps, path: string, pruned: string[]): void {
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s['x-kubernetes-embedded-resource'] === true && META_FIELDS.has(k)) continue
      if (s.properties !== undefined && Object.hasOwn(s.properties, k)) walk(x[k], s.properties[k], appendKey(path, k), pruned)
      else if (isObject(s.additionalProperties)) walk(x[k], s.additionalProperties, appendKey(path, k), pruned)
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s)
    if (items !== undefined) x.forEach((v, i) => skipPrune(v, items, `${path}[${i}]`, pruned))
  }
}
