// Validation, pruning and defaulting of custom objects against a CRD version's structural
// OpenAPI v3 schema, as the reference's apiextensions-apiserver does them. The caller decodes,
// then defaults, prunes (reporting the pruned paths by fieldValidation) and validates.
import type { FieldError } from '../../resources/status.js'
import type { JSONSchemaProps } from './types.js'
import { toFieldError } from './messages.js'
import { validateNode } from './validate.js'
import { validateListSetsAndMaps } from './list-types.js'
import { embeddedObjectMetas as metasOf, validateEmbeddedResources } from './embedded.js'
import { normalize } from './normalize.js'
import { prune as pruneNode } from './prune.js'
import { applyDefaults as defaultNode } from './defaults.js'

export type { JSONSchemaProps, ValidationRule } from './types.js'
export { stringFormat } from './formats.js'
export { normalize } from './normalize.js'

// Every entry point takes the schema as decoded JSON and normalizes it (cached per schema
// object), so the walkers below never meet a keyword of the wrong kind.

/** The OpenAPI checks alone (the reference's ValidateCustomResource), one field error per violation. */
export function validateSchema (schema: JSONSchemaProps, obj: unknown): FieldError[] {
  return validateNode(normalize(schema), '', obj).errors.map(toFieldError)
}

/** Every check the reference makes of a custom object's body against its schema. */
export function validateCustomObject (schema: JSONSchemaProps, obj: unknown): FieldError[] {
  const s = normalize(schema)
  return [
    ...validateNode(s, '', obj).errors.map(toFieldError),
    ...validateEmbeddedResources('', s, obj),
    ...validateListSetsAndMaps('', s, obj)
  ]
}

/**
 * Removes the fields the schema does not declare, in place; returns their paths, sorted.
 * `isResourceRoot` keeps the root's apiVersion, kind and metadata.
 */
export const prune = (obj: unknown, schema: JSONSchemaProps | undefined, isResourceRoot = true): string[] =>
  pruneNode(obj, schema === undefined ? undefined : normalize(schema), isResourceRoot)

/** Fills the schema's defaults in place, after dropping nulls it neither allows nor defaults. */
export const applyDefaults = (obj: unknown, schema: JSONSchemaProps): void => defaultNode(obj, normalize(schema))

/** The warnings fieldValidation=Warn gives for pruned paths, in the reference's words. */
export const unknownFieldWarnings = (pruned: string[]): string[] => pruned.map(p => `unknown field ${JSON.stringify(p)}`)

/** The metadata of the embedded resources in `obj`, by path, for ObjectMeta validation above this layer. */
export const embeddedObjectMetas = (schema: JSONSchemaProps, obj: unknown): Array<{ path: string, metadata: Record<string, unknown> }> =>
  metasOf('', normalize(schema), obj)
