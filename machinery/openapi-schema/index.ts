// Validation, pruning and defaulting of custom objects against a CRD version's structural
// OpenAPI v3 schema, as the reference's apiextensions-apiserver does them. The caller decodes,
// then defaults, prunes (reporting the pruned paths by fieldValidation) and validates.
import type { FieldError } from '../../resources/status.js'
import type { JSONSchemaProps } from './types.js'
import { toFieldError } from './messages.js'
import { validateNode } from './validate.js'
import { validateListSetsAndMaps } from './list-types.js'
import { validateEmbeddedResources } from './embedded.js'

export type { JSONSchemaProps, ValidationRule } from './types.js'
export { prune } from './prune.js'
export { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaults.js'
export { validateListSetsAndMaps } from './list-types.js'
export { validateEmbeddedResources } from './embedded.js'
export { stringFormat } from './formats.js'

/** The OpenAPI checks alone (the reference's ValidateCustomResource), one field error per violation. */
export function validateSchema (schema: JSONSchemaProps, obj: unknown): FieldError[] {
  return validateNode(schema, '', obj).errors.map(toFieldError)
}

/** Every check the reference makes of a custom object's body against its schema. */
export function validateCustomObject (schema: JSONSchemaProps, obj: unknown): FieldError[] {
  return [
    ...validateSchema(schema, obj),
    ...validateEmbeddedResources('', schema, obj),
    ...validateListSetsAndMaps('', schema, obj)
  ]
}

/** The warnings fieldValidation=Warn gives for pruned paths, in the reference's words. */
export const unknownFieldWarnings = (pruned: string[]): string[] => pruned.map(p => `unknown field ${JSON.stringify(p)}`)
