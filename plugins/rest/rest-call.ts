// One REST request once its endpoint is resolved: what every verb handler reads, built once per
// request (a plain object of one shape, in place of per-request closures).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Resource } from '../../resources/define.js'
import { defaultManager } from '../../machinery/managed-fields.js'
import type { RequestInfo } from '../request-info.js'
import type { EncodeOptions } from './encode.js'
import type { Query } from './options.js'
import type { Caller, GenericStore } from './store.js'
import type { WatchSettings } from './watch.js'
import { warningHeaders } from './warnings.js'
import type { ConvertedServing, ResourceRegistry } from './resource-registry.js'

/** What the plugin holds for all its requests. */
export interface RestContext {
  readonly registry: ResourceRegistry
  readonly watch: WatchSettings
}

export interface RestCall {
  readonly request: FastifyRequest
  readonly reply: FastifyReply
  readonly info: RequestInfo
  readonly query: Query
  readonly context: RestContext
  readonly store: GenericStore
  /** The kind as stored. */
  readonly stored: Resource
  /** The kind as the path addresses it: the stored one, or another group's form of it (`converted`). */
  readonly served: Resource
  readonly converted: ConvertedServing | undefined
  /**
   * The apiVersion requests take and answers carry when it is not the stored kind's: an upstream
   * group alias of the path, an older version, or a converted form's.
   */
  readonly alias: string | undefined
  readonly namespace: string
  readonly subresource: string
  readonly enc: EncodeOptions
  readonly handler: VerbHandler
  /** The write's caller once there is one, so a refused write still relays what admission gathered. */
  caller: Caller | undefined
}

/** Serves one verb; resolves to the reply sent. */
export type VerbHandler = (call: RestCall) => Promise<unknown>

/** The write's caller, remembered on the call. */
export function callerOf (call: RestCall, fieldManager?: string): Caller {
  const { apiGroup, apiVersion, pathGroup } = call.info
  const request = call.request
  const c: Caller = {
    user: request.user,
    manager: fieldManager ?? defaultManager(request.headers['user-agent']),
    warnings: [],
    requestVersion: apiGroup === '' ? apiVersion : `${apiGroup}/${apiVersion}`,
    requestedAs: { group: pathGroup !== '' ? pathGroup : apiGroup, version: apiVersion }
  }
  call.caller = c
  return c
}

/**
 * What a write gathered beside its object: warnings for the client, annotations for the audit
 * log (as the reference server's warning and audit recorders relay them, refused writes too).
 */
export function relay (reply: FastifyReply, c: Caller): void {
  if (c.warnings.length > 0) void reply.header('warning', warningHeaders(c.warnings))
  if (c.auditAnnotations !== undefined) {
    for (const [key, value] of Object.entries(c.auditAnnotations)) reply.server.audit.annotate(reply.request, key, value, reply.server.admission.auditLevel(key))
  }
}
