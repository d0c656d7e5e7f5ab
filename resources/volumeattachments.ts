// VolumeAttachment (storage.svc.io/v1, cluster scope): the intent to attach a volume to a node.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, STATUS_ONLY_METADATA, type FieldError } from './define.js'
import { Int32, objectSchema, StringMap, Timestamp } from './meta.js'
import { GROUPS } from './naming.js'
import { PersistentVolumeSpec, validatePersistentVolumeSpec } from './persistent-volume-spec.js'
import { csiDriverNameProblems } from './volumes.js'
import { dnsSubdomainProblems, invalidEach } from './validation.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional

const VolumeError = Type.Object({
  time: opt(Type.Union([Timestamp(), Type.Null()])),
  message: opt(Type.String()),
  errorCode: opt(Int32())
}, { additionalProperties: false, ...message('VolumeError', { time: 1, message: 2, errorCode: keepZero(3) }) })

const schema = objectSchema(`${GROUPS.storage}/v1`, 'VolumeAttachment', {
  spec: Type.Object({
    attacher: Type.String(),
    source: Type.Object({
      persistentVolumeName: opt(Type.String()),
      inlineVolumeSpec: opt(PersistentVolumeSpec)
    }, { additionalProperties: false, ...message('VolumeAttachmentSource', { persistentVolumeName: keepZero(1), inlineVolumeSpec: 2 }) }),
    nodeName: Type.String()
  }, { additionalProperties: false, ...message('VolumeAttachmentSpec', { attacher: 1, source: 2, nodeName: 3 }) }),
  status: opt(Type.Object({
    attached: Type.Boolean(),
    attachmentMetadata: opt(StringMap()),
    attachError: opt(VolumeError),
    detachError: opt(VolumeError)
  }, { additionalProperties: false, ...message('VolumeAttachmentStatus', { attached: keepZero(1), attachmentMetadata: 2, attachError: 3, detachError: 4 }) }))
}, 'VolumeAttachment captures the intent to attach or detach the specified volume to/from the specified node.', { spec: 2, status: 3 })

type Attachment = Record<string, any>

const EXACTLY_ONE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'

export default defineResource({
  group: GROUPS.storage,
  version: 'v1',
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  singular: 'volumeattachment',
  scope: 'Cluster',
  schema,
  deleteReturns: 'Object',
  subresources: { status: statusSubresource(STATUS_ONLY_METADATA) },
  strategy: {
    validate (va: Attachment) {
      const errors: FieldError[] = []
      const spec: Attachment = va.spec ?? {}
      if (!spec.attacher) errors.push({ type: 'Required', field: 'spec.attacher' })
      else for (const p of csiDriverNameProblems(spec.attacher)) errors.push({ ...p, field: 'spec.attacher', value: spec.attacher })
      if (!spec.nodeName) errors.push({ type: 'Required', field: 'spec.nodeName' })
      else errors.push(...invalidEach('spec.nodeName', spec.nodeName, dnsSubdomainProblems(spec.nodeName)))
      const source: Attachment = spec.source ?? {}
      const hasName = source.persistentVolumeName !== undefined
      const hasInline = source.inlineVolumeSpec !== undefined
      if (!hasName && !hasInline) errors.push({ type: 'Required', field: 'spec.source', detail: EXACTLY_ONE })
      if (hasName && hasInline) errors.push({ type: 'Forbidden', field: 'spec.source', detail: EXACTLY_ONE })
      if (hasName && source.persistentVolumeName === '') errors.push({ type: 'Required', field: 'spec.source.persistentVolumeName', detail: 'must specify non empty persistentVolumeName' })
      if (hasInline) {
        errors.push(...validatePersistentVolumeSpec(source.inlineVolumeSpec, 'spec.source.inlineVolumeSpec', true))
      }
      for (const k of ['attachError', 'detachError']) {
        if ((va.status?.[k]?.message ?? '').length > 1024) errors.push({ type: 'TooLong', field: `status.${k}.message`, detail: 'may not be more than 1024 bytes' })
      }
      return errors
    },
    validateUpdate: (va, old) => isDeepStrictEqual(va.spec, old.spec) ? [] : [{ type: 'Invalid', field: 'spec', value: va.spec, detail: 'field is immutable' }]
  },
  columns: [
    { name: 'Attacher', type: 'string', description: 'The driver that attaches the volume', value: (a: Attachment) => a.spec?.attacher },
    { name: 'PV', type: 'string', description: 'The persistent volume attached', value: (a: Attachment) => a.spec?.source?.persistentVolumeName ?? '' },
    { name: 'Node', type: 'string', description: 'The node the volume is attached to', value: (a: Attachment) => a.spec?.nodeName },
    { name: 'Attached', type: 'boolean', description: 'Whether the volume is attached', value: (a: Attachment) => a.status?.attached ?? false }
  ],
  example: {
    metadata: { name: 'csi-attachment-1' },
    spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'local-data' }, nodeName: 'node-1' },
    status: { attached: true }
  }
})
