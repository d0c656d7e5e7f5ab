// ConfigMap (core v1): configuration data for pods, text in data and bytes in binaryData.
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema, StringMap } from './meta.js'
import { base64Size, MAX_DATA_SIZE, validateBase64Values, validateConfigKeys, validateImmutable } from './validation.js'
import { keepZero } from './protobuf.js'

const schema = objectSchema('v1', 'ConfigMap', {
  data: Type.Optional(StringMap({ description: 'Configuration data; keys consist of alphanumerics, -, _ and .' })),
  binaryData: Type.Optional(Type.Record(Type.String(), Type.String({ format: 'byte' }), { description: 'Binary data, base64-encoded; keys must not overlap with data.' })),
  immutable: Type.Optional(Type.Boolean({ description: 'When true, data cannot be changed.' }))
}, 'ConfigMap holds configuration data for pods to consume.', { data: 2, binaryData: 3, immutable: keepZero(4) })

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  scope: 'Namespaced',
  schema,
  strategy: {
    validate (cm) {
      const errors = [...validateConfigKeys(cm.data, 'data'), ...validateConfigKeys(cm.binaryData, 'binaryData'), ...validateBase64Values(cm.binaryData, 'binaryData')]
      let size = 0
      for (const [k, v] of Object.entries(cm.data ?? {})) {
        if (cm.binaryData?.[k] !== undefined) errors.push({ type: 'Invalid', field: `data[${k}]`, value: k, detail: 'duplicate of key present in binaryData' })
        size += Buffer.byteLength(v)
      }
      for (const v of Object.values(cm.binaryData ?? {})) size += base64Size(v)
      if (size > MAX_DATA_SIZE) errors.push({ type: 'TooLong', field: '', detail: `must have at most ${MAX_DATA_SIZE} bytes` })
      return errors
    },
    validateUpdate: (cm, old) => validateImmutable(cm, old, ['data', 'binaryData'])
  },
  columns: [
    { name: 'Data', type: 'integer', value: (cm) => Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length }
  ],
  example: {
    metadata: { name: 'game-config' },
    data: { 'game.properties': 'enemies=aliens\nlives=3\n', 'ui.properties': 'color.good=purple\n' }
  }
})
