// StorageClass (storage.svc.io/v1, cluster scope): how volumes of a class are provisioned.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema, StringMap } from './meta.js'
import { ANNOTATIONS, GROUPS } from './naming.js'
import { AtomicList, TopologySelectorTerm, validateTopologySelectorTerms } from './core-types.js'
import { invalidEach, qualifiedNameProblems } from './validation.js'
import { keepZero } from './protobuf.js'
import { nodeLabelDeprecation, warnOnWrite } from './deprecation-warnings.js'

const opt = Type.Optional

const schema = objectSchema(`${GROUPS.storage}/v1`, 'StorageClass', {
  provisioner: Type.String({ description: 'The driver that provisions volumes of this class.' }),
  parameters: opt(StringMap({ description: 'Parameters for the provisioner.' })),
  reclaimPolicy: opt(Type.String({ default: 'Delete' })),
  mountOptions: opt(AtomicList(Type.String())),
  allowVolumeExpansion: opt(Type.Boolean()),
  volumeBindingMode: opt(Type.String({ default: 'Immediate' })),
  allowedTopologies: opt(AtomicList(TopologySelectorTerm))
}, 'StorageClass describes the parameters for a class of storage for which volumes can be dynamically provisioned.', {
  provisioner: 2,
  parameters: 3,
  reclaimPolicy: keepZero(4),
  mountOptions: 5,
  allowVolumeExpansion: keepZero(6),
  volumeBindingMode: keepZero(7),
  allowedTopologies: 8
})

type Class = Record<string, any>

const RECLAIM = ['Delete', 'Retain']
const BINDING = ['Immediate', 'WaitForFirstConsumer']
const MAX_PARAMETERS = 512
const MAX_PARAMETERS_SIZE = 256 * 1024

const isDefaultClass = (c: Class): boolean => c.metadata?.annotations?.[ANNOTATIONS.defaultStorageClass] === 'true'

export default defineResource({
  group: GROUPS.storage,
  version: 'v1',
  kind: 'StorageClass',
  plural: 'storageclasses',
  singular: 'storageclass',
  shortNames: ['sc'],
  scope: 'Cluster',
  schema,
  deleteReturns: 'Object',
  generation: false,
  strategy: {
    ...warnOnWrite((sc: Record<string, any>) => (sc.allowedTopologies ?? []).flatMap((term: Record<string, any>, i: number) =>
      (term?.matchLabelExpressions ?? []).flatMap((e: Record<string, any>, j: number) => {
        const msg = nodeLabelDeprecation(e?.key)
        return msg === undefined ? [] : [`allowedTopologies[${i}].matchLabelExpressions[${j}]: ${msg}`]
      }))),
    validate (sc) {
      const errors = []
      if (!sc.provisioner) errors.push({ type: 'Required' as const, field: 'provisioner' })
      else errors.push(...invalidEach('provisioner', sc.provisioner, qualifiedNameProblems(sc.provisioner.toLowerCase())))
      const params = Object.entries(sc.parameters ?? {})
      if (params.length > MAX_PARAMETERS) errors.push({ type: 'TooLong' as const, field: 'parameters', detail: `Provisioner Parameters exceeded max allowed, must have at most ${MAX_PARAMETERS} entries` })
      let size = 0
      for (const [k, v] of params) {
        if (k === '') errors.push({ type: 'Invalid' as const, field: 'parameters', value: k, detail: 'field can not be empty.' })
        size += k.length + v.length
      }
      if (size > MAX_PARAMETERS_SIZE) errors.push({ type: 'TooLong' as const, field: 'parameters', detail: `must have at most ${MAX_PARAMETERS_SIZE} bytes` })
      if (!RECLAIM.includes(sc.reclaimPolicy ?? '')) errors.push({ type: 'NotSupported' as const, field: 'reclaimPolicy', value: sc.reclaimPolicy, supported: RECLAIM })
      if (!BINDING.includes(sc.volumeBindingMode ?? '')) errors.push({ type: 'NotSupported' as const, field: 'volumeBindingMode', value: sc.volumeBindingMode, supported: BINDING })
      errors.push(...validateTopologySelectorTerms(sc.allowedTopologies, 'allowedTopologies'))
      return errors
    },
    validateUpdate (sc, old) {
      const errors = []
      if (!isDeepStrictEqual(sc.parameters ?? {}, old.parameters ?? {})) errors.push({ type: 'Forbidden' as const, field: 'parameters', detail: 'updates to parameters are forbidden.' })
      if (sc.provisioner !== old.provisioner) errors.push({ type: 'Forbidden' as const, field: 'provisioner', detail: 'updates to provisioner are forbidden.' })
      if (sc.reclaimPolicy !== old.reclaimPolicy) errors.push({ type: 'Forbidden' as const, field: 'reclaimPolicy', detail: 'updates to reclaimPolicy are forbidden.' })
      if (sc.volumeBindingMode !== old.volumeBindingMode) errors.push({ type: 'Invalid' as const, field: 'volumeBindingMode', value: sc.volumeBindingMode, detail: 'field is immutable' })
      return errors
    }
  },
  tableName: (c: Class) => isDefaultClass(c) ? `${c.metadata?.name} (default)` : c.metadata?.name,
  columns: [
    { name: 'Provisioner', type: 'string', description: 'The driver that provisions volumes of this class', value: (c: Class) => c.provisioner },
    { name: 'ReclaimPolicy', type: 'string', description: 'What happens to provisioned volumes when released', value: (c: Class) => c.reclaimPolicy ?? 'Delete' },
    { name: 'VolumeBindingMode', type: 'string', description: 'When volumes are bound and provisioned', value: (c: Class) => c.volumeBindingMode ?? 'Immediate' },
    { name: 'AllowVolumeExpansion', type: 'string', description: 'Whether claims of this class may grow', value: (c: Class) => String(c.allowVolumeExpansion ?? false) }
  ],
  example: {
    metadata: { name: 'standard' },
    provisioner: 'csi.example.com',
    reclaimPolicy: 'Retain',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true
  }
})
