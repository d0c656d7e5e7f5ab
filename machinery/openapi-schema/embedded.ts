// x-kubernetes-embedded-resource: an object that is itself a Kubernetes object needs a string
// apiVersion of one group/version and a kind (the reference's objectmeta.Validate, below the root).
import type { FieldError } from '../../resources/status.js'
import { dns1035LabelProblems } from '../../resources/validation.js'
import type { JSONSchemaProps } from './types.js'
import { isObject, itemsOf } from './types.js'
import { child, index, key } from './field-path.js'

/**
 * Visits every object the schema marks x-kubernetes-embedded-resource, with its path, following
 * properties, additionalProperties and items as the value has them.
 */
function forEachEmbedded (path: string, s: JSONSchemaProps | undefined, x: unknown, visit: (path: string, x: Record<string, unknown>) => void): void {
  if (s === undefined) return
  if (isObject(x)) {
    if (s['x-kubernetes-embedded-resource'] === true) visit(path, x)
    for (const [k, v] of Object.entries(x)) {
      if (s.properties !== undefined && Object.hasOwn(s.properties, k)) forEachEmbedded(child(path, k), s.properties[k], v, visit)
      else if (isObject(s.additionalProperties)) forEachEmbedded(key(path, k), s.additionalProperties, v, visit)
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s)
    x.forEach((v, i) => forEachEmbedded(index(path, i), items, v, visit))
  }
}

export function validateEmbeddedResources (path: string, s: JSONSchemaProps | undefined, x: unknown): FieldError[] {
  const errs: FieldError[] = []
  forEachEmbedded(path, s, x, (at, obj) => errs.push(...embedded(at, obj)))
  return errs
}

function embedded (path: string, x: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = []
  if (!Object.hasOwn(x, 'apiVersion')) errs.push({ type: 'Required', field: child(path, 'apiVersion') })
  if (!Object.hasOwn(x, 'kind')) errs.push({ type: 'Required', field: child(path, 'kind') })
  const apiVersion = x.apiVersion
  if (Object.hasOwn(x, 'apiVersion')) {
    const field = child(path, 'apiVersion')
    if (typeof apiVersion !== 'string') errs.push({ type: 'Invalid', field, value: apiVersion, detail: 'must be a string' })
    else if (apiVersion === '') errs.push({ type: 'Invalid', field, value: apiVersion, detail: 'must not be empty' })
    else if (apiVersion.split('/').length > 2) errs.push({ type: 'Invalid', field, value: apiVersion, detail: `unexpected GroupVersion string: ${apiVersion}` })
  }
  if (Object.hasOwn(x, 'kind')) {
    const field = child(path, 'kind')
    const kind = x.kind
    if (typeof kind !== 'string') errs.push({ type: 'Invalid', field, value: kind, detail: 'must be a string' })
    else if (kind === '') errs.push({ type: 'Invalid', field, value: kind, detail: 'must not be empty' })
    else {
      const problems = dns1035LabelProblems(kind.toLowerCase())
      if (problems.length > 0) errs.push({ type: 'Invalid', field, value: kind, detail: `may have mixed case, but should otherwise match: ${problems.join(',')}` })
    }
  }
  if (Object.hasOwn(x, 'metadata') && x.metadata !== null && !isObject(x.metadata)) {
    errs.push({ type: 'Invalid', field: child(path, 'metadata'), value: x.metadata, detail: 'must be an object' })
  }
  return errs
}

/**
 * The metadata of every embedded resource below the root, with its path, for the caller to
 * validate as ObjectMeta (the reference's ValidateObjectMeta there, a name being optional),
 * which lives above this layer.
 */
export function embeddedObjectMetas (path: string, s: JSONSchemaProps | undefined, x: unknown): Array<{ path: string, metadata: Record<string, unknown> }> {
  const out: Array<{ path: string, metadata: Record<string, unknown> }> = []
  forEachEmbedded(path, s, x, (at, obj) => {
    if (at !== '' && isObject(obj.metadata)) out.push({ path: child(at, 'metadata'), metadata: obj.metadata })
  })
  return out
}
