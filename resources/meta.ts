// Schemas shared by every kind: object metadata, list metadata and the common small types.
import { Type, type TProperties } from '@sinclair/typebox'
import { keepZero, message, type ProtobufFields } from './protobuf.js'

export const Int32 = (opts: object = {}) => Type.Integer({ minimum: -2147483648, maximum: 2147483647, format: 'int32', ...opts })
export const Int64 = (opts: object = {}) => Type.Integer({ format: 'int64', ...opts })
export const StringMap = (opts: object = {}) => Type.Record(Type.String(), Type.String(), opts)
export const Timestamp = (opts: object = {}) => Type.String({ format: 'date-time', ...opts })
/** A resource quantity in canonical string form ("1Gi", "500m"). */
export const Quantity = (opts: object = {}) => Type.String({ format: 'quantity', ...opts })

export const OwnerReference = Type.Object({
  apiVersion: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  uid: Type.String(),
  controller: Type.Optional(Type.Boolean()),
  blockOwnerDeletion: Type.Optional(Type.Boolean())
}, { additionalProperties: false, ...message('meta.v1.OwnerReference', { kind: 1, name: 3, uid: 4, apiVersion: 5, controller: keepZero(6), blockOwnerDeletion: keepZero(7) }) })

export const ManagedFieldsEntry = Type.Object({
  manager: Type.Optional(Type.String()),
  operation: Type.Optional(Type.String()),
  apiVersion: Type.Optional(Type.String()),
  time: Type.Optional(Timestamp()),
  fieldsType: Type.Optional(Type.String()),
  fieldsV1: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  subresource: Type.Optional(Type.String())
}, { additionalProperties: false, ...message('meta.v1.ManagedFieldsEntry', { manager: 1, operation: 2, apiVersion: 3, time: 4, fieldsType: 6, fieldsV1: { number: 7, type: 'meta.v1.FieldsV1' }, subresource: 8 }) })

export const ObjectMeta = Type.Object({
  name: Type.Optional(Type.String({ description: 'Unique within kind and namespace.' })),
  generateName: Type.Optional(Type.String({ description: 'Prefix for a server-generated unique name.' })),
  namespace: Type.Optional(Type.String()),
  selfLink: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  generation: Type.Optional(Int64()),
  creationTimestamp: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  deletionTimestamp: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  deletionGracePeriodSeconds: Type.Optional(Int64()),
  labels: Type.Optional(Type.Union([StringMap(), Type.Null()])),
  annotations: Type.Optional(Type.Union([StringMap(), Type.Null()])),
  ownerReferences: Type.Optional(Type.Array(OwnerReference, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['uid'], 'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-patch-strategy': 'merge' })),
  finalizers: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' })),
  managedFields: Type.Optional(Type.Array(ManagedFieldsEntry))
}, {
  additionalProperties: false,
  description: 'Standard object metadata.',
  ...message('meta.v1.ObjectMeta', {
    name: 1,
    generateName: 2,
    namespace: 3,
    selfLink: 4,
    uid: 5,
    resourceVersion: 6,
    generation: 7,
    creationTimestamp: 8,
    deletionTimestamp: 9,
    deletionGracePeriodSeconds: keepZero(10),
    labels: 11,
    annotations: 12,
    ownerReferences: 13,
    finalizers: 14,
    managedFields: 17
  })
})

export const ListMeta = Type.Object({
  resourceVersion: Type.Optional(Type.String()),
  continue: Type.Optional(Type.String()),
  remainingItemCount: Type.Optional(Int64()),
  selfLink: Type.Optional(Type.String())
}, { additionalProperties: false, ...message('meta.v1.ListMeta', { selfLink: 1, resourceVersion: 2, continue: 3, remainingItemCount: keepZero(4) }) })

/**
 * The envelope every kind shares: apiVersion, kind and metadata around its own fields.
 * `fieldNumbers` are the protobuf field numbers of the kind's fields (metadata is always 1); a
 * kind without them has no protobuf form.
 */
export function objectSchema<T extends TProperties> (apiVersion: string, kind: string, fields: T, description?: string, fieldNumbers?: ProtobufFields) {
  return Type.Object({
    apiVersion: Type.Optional(Type.Literal(apiVersion)),
    kind: Type.Optional(Type.Literal(kind)),
    metadata: Type.Optional(ObjectMeta),
    ...fields
  }, { additionalProperties: false, description, ...(fieldNumbers === undefined ? {} : message(kind, { metadata: 1, ...fieldNumbers })) })
}

/** The Age column, for kinds that show columns after it (kubectl's wide output); others get it last. */
export const AGE_COLUMN = {
  name: 'Age',
  type: 'date' as const,
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  value: (obj: { metadata?: { creationTimestamp?: string | null } }) => obj.metadata?.creationTimestamp ?? undefined
}

const NAME_SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789'
/** Five random characters for generated names, from the reference server's alphabet (no vowels, no look-alikes). */
export const randomNameSuffix = (): string => Array.from({ length: 5 }, () => NAME_SUFFIX_CHARS[Math.floor(Math.random() * NAME_SUFFIX_CHARS.length)]).join('')
