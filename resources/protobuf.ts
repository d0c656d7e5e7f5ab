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
  /** The schema the protobuf type follows from where the property's own is looser (an object of anything in JSON). */
  schema?: TSchema
  /** A map whose values are lists: the message each list is wrapped in (upstream's ExtraValue). */
  listMessage?: string
  /**
   * A property of ours the reference's message lacks: it has no field, and an object that sets
   * it is answered in JSON (the protobuf encoding would lose it).
   */
  jsonOnly?: boolean
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
  /** Fields of the reference's message that the JSON schema does not have yet, with their own schemas. */
  wireOnly?: Record<string, WireOnlyField>
}

/** A field only the protobuf form has: its number and the schema its type follows from. */
export interface WireOnlyField { field: number | ProtobufField, schema: TSchema }

export interface ProtobufInline extends ProtobufMessage { number: number }

/** Schema options naming `name` as a message with `fields`; spread them into a Type.Object's options. */
export const message = (name: string, fields: ProtobufFields, inline?: Record<string, ProtobufInline>, wireOnly?: Record<string, WireOnlyField>): { [PROTOBUF_OPTION]: ProtobufMessage } =>
  ({ [PROTOBUF_OPTION]: { message: name, fields, ...(inline === undefined ? {} : { inline }), ...(wireOnly === undefined ? {} : { wireOnly }) } })

/** An embedded struct at field `number` holding `fields` of the object (see ProtobufMessage.inline). */
export const inlined = (number: number, name: string, fields: ProtobufFields, inline?: Record<string, ProtobufInline>): ProtobufInline =>
  inline === undefined ? { number, message: name, fields } : { number, message: name, fields, inline }

/** See ProtobufField.jsonOnly. */
export const JSON_ONLY: ProtobufField = { number: 0, jsonOnly: true }

/** See ProtobufMessage.wireOnly. */
export const wireOnly = (field: number | ProtobufField, schema: TSchema): WireOnlyField => ({ field, schema })

/** A field whose zero value JSON still renders. */
export const keepZero = (number: number, more: Omit<ProtobufField, 'number' | 'keepZero'> = {}): ProtobufField => ({ number, keepZero: true, ...more })

/** The message description of an object schema, if it has one. */
export const protobufMessageOf = (schema: TSchema): ProtobufMessage | undefined =>
  (schema as Record<string, unknown>)[PROTOBUF_OPTION] as ProtobufMessage | undefined
