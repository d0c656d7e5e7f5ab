// The kube-openapi validator's errors (pkg/validation/errors) and how the reference turns them
// into field errors (kubeOpenAPIResultToFieldErrors): the code picks the field error's type,
// the message is kept as its detail.
import type { FieldError } from '../../resources/status.js'

export type Code = 'InvalidType' | 'Required' | 'TooLong' | 'TooShort' | 'Pattern' | 'Enum' | 'MultipleOf' |
  'Max' | 'Min' | 'Unique' | 'MaxItems' | 'MinItems' | 'TooFewProperties' | 'TooManyProperties' |
  'UnallowedProperty' | 'Composite'

export interface OpenAPIError {
  code: Code
  /** The value's path as the validator builds it: `spec.replicas`, `.spec` at the root's children. */
  name: string
  message: string
  value?: unknown
  /** Enum: the allowed values. */
  values?: unknown[]
  /** TooLong, MaxItems, TooManyProperties: the limit. */
  limit?: number
}

const inBody = (name: string, rest: string): string => `${name} in body ${rest}`

export const invalidType = (name: string, type: string, value: unknown): OpenAPIError => ({
  code: 'InvalidType',
  name,
  value,
  message: typeof value === 'string' ? inBody(name, `must be of type ${type}: ${JSON.stringify(value)}`) : inBody(name, `must be of type ${type}`)
})

export const required = (name: string): OpenAPIError => ({ code: 'Required', name, message: inBody(name, 'is required') })

export const tooLong = (name: string, max: number, value: string): OpenAPIError =>
  ({ code: 'TooLong', name, value, limit: max, message: inBody(name, `should be at most ${max} chars long`) })

export const tooShort = (name: string, min: number, value: string): OpenAPIError =>
  ({ code: 'TooShort', name, value, message: inBody(name, `should be at least ${min} chars long`) })

export const failedPattern = (name: string, pattern: string, value: string): OpenAPIError =>
  ({ code: 'Pattern', name, value, message: inBody(name, `should match '${pattern}'`) })

export const enumFail = (name: string, value: unknown, values: unknown[]): OpenAPIError =>
  ({ code: 'Enum', name, value, values, message: inBody(name, `should be one of ${goList(values)}`) })

export const notMultipleOf = (name: string, factor: string, value: unknown): OpenAPIError =>
  ({ code: 'MultipleOf', name, value, message: inBody(name, `should be a multiple of ${factor}`) })

export const exceedsMaximum = (name: string, max: string, exclusive: boolean, value: unknown): OpenAPIError =>
  ({ code: 'Max', name, value, message: inBody(name, `should be less than ${exclusive ? '' : 'or equal to '}${max}`) })

export const exceedsMinimum = (name: string, min: string, exclusive: boolean, value: unknown): OpenAPIError =>
  ({ code: 'Min', name, value, message: inBody(name, `should be greater than ${exclusive ? '' : 'or equal to '}${min}`) })

export const duplicateItems = (name: string): OpenAPIError => ({ code: 'Unique', name, message: inBody(name, "shouldn't contain duplicates") })

export const tooManyItems = (name: string, max: number, size: number): OpenAPIError =>
  ({ code: 'MaxItems', name, value: size, limit: max, message: inBody(name, `should have at most ${max} items`) })

export const tooFewItems = (name: string, min: number, size: number): OpenAPIError =>
  ({ code: 'MinItems', name, value: size, message: inBody(name, `should have at least ${min} items`) })

export const tooFewProperties = (name: string, min: number, size: number): OpenAPIError =>
  ({ code: 'TooFewProperties', name, value: size, message: inBody(name, `should have at least ${min} properties`) })

export const tooManyProperties = (name: string, max: number, size: number): OpenAPIError =>
  ({ code: 'TooManyProperties', name, value: size, limit: max, message: inBody(name, `should have at most ${max} properties`) })

export const propertyNotAllowed = (name: string, key: string): OpenAPIError =>
  ({ code: 'UnallowedProperty', name, value: key, message: `${name}.${key} in body is a forbidden property` })

// The combinators' errors are not validation errors in kube-openapi (errors.New), so the
// reference reports them at the nil path with an empty value.
export const composite = (message: string): OpenAPIError => ({ code: 'Composite', name: '', message })

/** Go's `%v` of a []interface{}: `[a b 1]`. */
function goList (values: unknown[]): string {
  return `[${values.map(v => typeof v === 'string' ? v : v === null ? '<nil>' : typeof v === 'object' ? JSON.stringify(v) : String(v)).join(' ')}]`
}

/** field.Path(nil).String() in the reference, where an error names no field. */
export const NIL_PATH = '<nil>'

const plural = (n: number, one: string, many: string): string => n === 1 ? one : many

export function toFieldError (e: OpenAPIError): FieldError {
  const name = e.name.startsWith('.') ? e.name.slice(1) : e.name
  const field = e.code === 'Composite' || name === '' ? NIL_PATH : name
  const value = e.value === undefined || e.value === null ? '' : e.value
  switch (e.code) {
    case 'Required': return { type: 'Required', field }
    case 'Enum': return {
      type: 'NotSupported',
      field,
      value: e.value,
      supported: (e.values ?? []).map(v => typeof v === 'string' ? v : JSON.stringify(v))
    }
    case 'TooLong': return { type: 'TooLong', field, detail: `may not be more than ${e.limit} ${plural(e.limit!, 'byte', 'bytes')}` }
    case 'MaxItems':
    case 'TooManyProperties': return { type: 'TooMany', field, value: e.value, detail: `must have at most ${e.limit} ${plural(e.limit!, 'item', 'items')}` }
    case 'InvalidType': return { type: 'TypeInvalid', field, value, detail: e.message }
    default: return { type: 'Invalid', field, value, detail: e.message }
  }
}
