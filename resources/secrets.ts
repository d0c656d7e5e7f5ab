// Secret (core v1): sensitive data as bytes; stringData is a write-only convenience merged into data.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { objectSchema, StringMap } from './meta.js'
import { SECRET_TYPES, SERVICE_ACCOUNT_ANNOTATIONS } from './naming.js'
import { base64Size, MAX_DATA_SIZE, validateBase64Values, validateConfigKeys, validateImmutable } from './validation.js'
import { keepZero } from './protobuf.js'

const schema = objectSchema('v1', 'Secret', {
  data: Type.Optional(Type.Record(Type.String(), Type.String({ format: 'byte' }), { description: 'Secret data, base64-encoded (RFC 4648 section 4).' })),
  stringData: Type.Optional(StringMap({ description: 'Write-only: merged into data on write, overriding existing keys; never returned.' })),
  immutable: Type.Optional(Type.Boolean({ description: 'When true, data cannot be changed.' })),
  type: Type.Optional(Type.String({ description: 'Used to facilitate programmatic handling of secret data.' }))
}, 'Secret holds secret data of a certain type.', { data: 2, type: 3, stringData: 4, immutable: keepZero(5) })

type Secret = { data?: Record<string, string>, stringData?: Record<string, string>, type?: string, metadata?: { annotations?: Record<string, string> | null } }

/** Keys each well-known type requires. */
const REQUIRED_KEYS: Record<string, string[]> = {
  [SECRET_TYPES.dockercfg]: ['.dockercfg'],
  [SECRET_TYPES.dockerConfigJson]: ['.dockerconfigjson'],
  [SECRET_TYPES.sshAuth]: ['ssh-privatekey'],
  [SECRET_TYPES.tls]: ['tls.crt', 'tls.key']
}

function mergeStringData (s: Secret): void {
  if (s.stringData === undefined) return
  const data: Record<string, string> = { ...(s.data ?? {}) }
  for (const [k, v] of Object.entries(s.stringData)) {
    Object.defineProperty(data, k, { value: Buffer.from(v, 'utf8').toString('base64'), enumerable: true, writable: true, configurable: true })
  }
  s.data = data
  delete s.stringData
}

function validateType (s: Secret): FieldError[] {
  const errors: FieldError[] = []
  const type = s.type ?? SECRET_TYPES.opaque
  for (const key of REQUIRED_KEYS[type] ?? []) {
    if (s.data?.[key] === undefined) errors.push({ type: 'Required', field: `data[${key}]` })
  }
  if (type === SECRET_TYPES.serviceAccountToken && !s.metadata?.annotations?.[SERVICE_ACCOUNT_ANNOTATIONS.name]) {
    errors.push({ type: 'Required', field: `metadata.annotations[${SERVICE_ACCOUNT_ANNOTATIONS.name}]` })
  }
  if (type === SECRET_TYPES.basicAuth && s.data?.username === undefined && s.data?.password === undefined) {
    errors.push({ type: 'Required', field: 'data[username]' }, { type: 'Required', field: 'data[password]' })
  }
  return errors
}

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  sensitive: true,
  singular: 'secret',
  scope: 'Namespaced',
  schema,
  strategy: {
    prepareForCreate (s) {
      mergeStringData(s)
      if (s.type === undefined || s.type === '') s.type = SECRET_TYPES.opaque
    },
    prepareForUpdate (s, old) {
      mergeStringData(s)
      if (s.type === undefined || s.type === '') s.type = old.type
    },
    validate (s) {
      const errors = [...validateConfigKeys(s.data, 'data'), ...validateBase64Values(s.data, 'data'), ...validateType(s)]
      let size = 0
      for (const v of Object.values(s.data ?? {})) size += base64Size(v)
      if (size > MAX_DATA_SIZE) errors.push({ type: 'TooLong', field: 'data', detail: `must have at most ${MAX_DATA_SIZE} bytes` })
      return errors
    },
    validateUpdate (s, old) {
      const errors = validateImmutable(s, old, ['data'])
      if (s.type !== old.type) errors.push({ type: 'Invalid', field: 'type', value: s.type, detail: 'field is immutable' })
      return errors
    }
  },
  columns: [
    { name: 'Type', type: 'string', value: (s) => s.type ?? SECRET_TYPES.opaque },
    { name: 'Data', type: 'integer', value: (s) => Object.keys(s.data ?? {}).length }
  ],
  fieldSelectors: { type: (s) => s.type },
  example: {
    metadata: { name: 'db-credentials' },
    type: 'Opaque',
    data: { username: 'YWRtaW4=', password: 'czNjcjN0' }
  }
})
