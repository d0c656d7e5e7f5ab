// The protobuf form of a schema, written on the schema itself: each object schema that is a
// message names its message and numbers its properties with the field numbers of the
// reference's generated.proto (clients depend on them). The protobuf plugin builds its message
// types from these at start; nothing else describes a kind's wire form.
import type { TSchema } from '@sinclair/typebox'

/** The schema option that carries a message's description. */
export const PROTOBUF_OPTION = 'protobuf'

/** One property's field: its number, and what the schema alone cannot say. */
export interface ProtobufField {
  number: number
  /** The scalar renders in JSON even when zero (a Go pointer, or a field without omitempty). */
  keepZero?: boolean
  /**
   * The protobuf type where the schema's type and format do not decide it: a scalar (`int64`
   * for an integer without format) or a message's full name (`meta.v1.FieldsV1`).
   */
  type?: string
  /** A map whose values are lists: the message each list is wrapped in (upstream's ExtraValue). */
  listMessage?: string
}

export type ProtobufFields = Record<string, number | ProtobufField>

/**
 * A message: its name (relative to the package of the kind that reaches it, or a full name
 * such as `meta.v1.ObjectMeta`), its fields by property name, and the embedded structs whose
 * fields the schema (as upstream's JSON) flattens into this object, each with its own number.
 */
export interface ProtobufMessage {
  message: string
  fields: ProtobufFields
  inline?: Record<string, ProtobufInline>
}

export interface ProtobufInline extends ProtobufMessage { number: number }

/** Schema options naming `name` as a message with `fields`; spread them into a Type.Object's options. */
export const message = (name: string, fields: ProtobufFields, inline?: Record<string, ProtobufInline>): { [PROTOBUF_OPTION]: ProtobufMessage } =>
  ({ [PROTOBUF_OPTION]: inline === undefined ? { message: name, fields } : { message: name, fields, inline } })

/** An embedded struct at field `number` holding `fields` of the object (see ProtobufMessage.inline). */
export const inlined = (number: number, name: string, fields: ProtobufFields): ProtobufInline => ({ number, message: name, fields })

/** A field whose zero value JSON still renders. */
export const keepZero = (number: number, more: Omit<ProtobufField, 'number' | 'keepZero'> = {}): ProtobufField => ({ number, keepZero: true, ...more })

/** The message description of an object schema, if it has one. */
export const protobufMessageOf = (schema: TSchema): ProtobufMessage | undefined =>
  (schema as Record<string, unknown>)[PROTOBUF_OPTION] as ProtobufMessage | undefined
