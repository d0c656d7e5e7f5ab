// The audit log (--audit-policy-file, --audit-log-path): each request the policy selects gives
// audit.svc.io/v1 Events at its stages, under the request's Audit-Id (plugins/answer-headers.ts).
// The hooks keep references only; events are built and serialized in the writer's batch, after
// the answer.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parse as parseYaml } from 'yaml'
import { GROUPS, MEDIA_TYPES } from '../../resources/naming.js'
import type { UserInfo } from '../../resources/user-info.js'
import { atLeast, evaluate, loadPolicy, type AuditAttributes, type Decision, type Level, type Policy, type Stage } from './policy.js'
import { createAuditLogWriter, type AuditLogOptions, type AuditLogWriter } from './log-writer.js'
import { PROTOBUF_MEDIA_TYPES } from '../protobuf/index.js'

export interface AuditOptions extends Partial<AuditLogOptions> {
  /** --audit-policy-file */
  policyFile?: string
  /** A policy given directly (tests); the file wins when both are given. */
  policy?: Policy
}

/** What a request's audit events share, captured as the request arrives. */
interface AuditContext {
  id: string
  decision: Decision
  receivedAt: Date
  /** The authenticated user: impersonation replaces request.user later. */
  user: UserInfo | undefined
  /** The answer's bytes, kept by reference for the RequestResponse level and for error Statuses. */
  payload?: unknown
  annotations?: Record<string, string>
}

export interface Audit {
  /**
   * Adds an annotation to the request's events (svc.io/deprecated, webhook patches); a no-op when
   * the request is not audited, or audited below `level` (Metadata when not given).
   */
  annotate (request: FastifyRequest, key: string, value: string, level?: Level): void
}

declare module 'fastify' {
  interface FastifyInstance { audit: Audit }
  interface FastifyRequest { auditContext: AuditContext | null }
}

const EVENT_API_VERSION = `${GROUPS.audit}/v1`

/** RFC 3339 with microseconds, as the reference server writes audit timestamps. */
const microTime = (d: Date): string => d.toISOString().replace(/Z$/, '000Z')

function attributesOf (request: FastifyRequest, user: UserInfo | undefined): AuditAttributes {
  const i = request.requestInfo
  return {
    user,
    verb: i.verb,
    isResourceRequest: i.isResourceRequest,
    path: i.path,
    apiGroup: i.apiGroup,
    namespace: i.namespace,
    resource: i.resource,
    subresource: i.subresource,
    name: i.name
  }
}

function sourceIPs (request: FastifyRequest): string[] {
  const forwarded = request.headers['x-forwarded-for']
  const ips = typeof forwarded === 'string' ? forwarded.split(',').map(s => s.trim()).filter(s => s !== '') : []
  const real = request.headers['x-real-ip']
  if (typeof real === 'string' && real !== '' && !ips.includes(real)) ips.push(real)
  const remote = request.raw.socket?.remoteAddress
  if (remote !== undefined && !ips.includes(remote)) ips.push(remote)
  return ips
}

function userOf (u: UserInfo | undefined): Record<string, unknown> {
  if (u === undefined) return {}
  const out: Record<string, unknown> = { username: u.username }
  if (u.uid !== undefined && u.uid !== '') out.uid = u.uid
  if (u.groups.length > 0) out.groups = u.groups
  if (u.extra !== undefined && Object.keys(u.extra).length > 0) out.extra = u.extra
  return out
}

/** The string fields of an object's metadata that an audit objectRef takes. */
function metadataOf (obj: Record<string, unknown> | undefined): { name?: string, namespace?: string, uid?: string, resourceVersion?: string } | undefined {
  const meta = obj?.metadata
  if (typeof meta !== 'object' || meta === null) return undefined
  const field = (k: string): string | undefined => typeof (meta as Record<string, unknown>)[k] === 'string' ? (meta as Record<string, string>)[k] : undefined
  return { name: field('name'), namespace: field('namespace'), uid: field('uid'), resourceVersion: field('resourceVersion') }
}

/** The request's object in any body encoding (kubectl writes protobuf), or undefined. */
function requestObjectOf (request: FastifyRequest, body: unknown, contentType: string | undefined, document: () => Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!PROTOBUF_MEDIA_TYPES.includes((contentType ?? '').split(';')[0]!.trim().toLowerCase())) return document()
  try {
    return Buffer.isBuffer(body) ? request.server.protobuf.decode(body) : undefined
  } catch {
    return undefined
  }
}

/** A JSON or YAML document from bytes, or undefined when it is neither (protobuf, empty). */
function decode (body: unknown, contentType: string | undefined): Record<string, unknown> | undefined {
  if (body === undefined || body === null) return undefined
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : undefined
  if (text === undefined || text === '') return undefined
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  try {
    if (type === MEDIA_TYPES.yaml || type === MEDIA_TYPES.applyPatch) return parseYaml(text) as Record<string, unknown>
    if (type === '' || type.endsWith('json')) return JSON.parse(text) as Record<string, unknown>
  } catch {}
  return undefined
}

function withoutManagedFields (obj: Record<string, unknown>): Record<string, unknown> {
  const strip = (o: unknown): unknown => {
    if (typeof o !== 'object' || o === null) return o
    const m = (o as { metadata?: Record<string, unknown> }).metadata
    if (m === undefined || !('managedFields' in m)) return o
    const { managedFields: _dropped, ...metadata } = m
    return { ...o, metadata }
  }
  const top = strip(obj) as Record<string, unknown>
  return Array.isArray(top.items) ? { ...top, items: top.items.map(strip) } : top
}

export default fp(async function audit (fastify: FastifyInstance, opts: AuditOptions) {
  const policy = opts.policyFile !== undefined ? loadPolicy(opts.policyFile) : opts.policy
  fastify.decorate('audit', {
    annotate (request: FastifyRequest, key: string, value: string, level: Level = 'Metadata') {
      const ctx = request.auditContext
      if (ctx === null || ctx === undefined || !atLeast(ctx.decision.level, level)) return
      ;(ctx.annotations ??= {})[key] = value
    }
  } satisfies Audit)
  fastify.decorateRequest('auditContext', null)
  if (policy === undefined || opts.path === undefined || opts.path === '') return
  const writer: AuditLogWriter = createAuditLogWriter({ path: opts.path, maxAgeDays: opts.maxAgeDays, maxBackups: opts.maxBackups, maxSizeMB: opts.maxSizeMB })
  fastify.addHook('onClose', async () => { await writer.close() })

  /** Kinds whose bodies carry credentials are recorded at most at Metadata, whatever the policy says. */
  const sensitive = (request: FastifyRequest): boolean => {
    const i = request.requestInfo
    if (!i.isResourceRequest || !fastify.hasDecorator('resources')) return false
    const r = fastify.resources.lookup(i.apiGroup, i.apiVersion, i.resource)?.resource
    if (r === undefined) return false
    return r.sensitive === true || (i.subresource !== '' && r.subresources[i.subresource]?.sensitive === true)
  }

  const decide = (request: FastifyRequest, user: UserInfo | undefined): Decision => {
    const d = evaluate(policy, attributesOf(request, user))
    return atLeast(d.level, 'Request') && sensitive(request) ? { ...d, level: 'Metadata' } : d
  }

  function emit (request: FastifyRequest, ctx: AuditContext, stage: Stage, code: number | undefined, at: Date): void {
    if (ctx.decision.omitStages.has(stage)) return
    const impersonated = request.user !== null && request.user !== undefined && request.user !== ctx.user ? request.user : undefined
    const contentType = request.headers['content-type']
    const body = request.body
    const payload = ctx.payload
    writer.write(() => {
      // The body as a JSON or YAML document, decoded at most once for the objectRef and requestObject.
      let decoded: { value: Record<string, unknown> | undefined } | undefined
      const document = (): Record<string, unknown> | undefined => (decoded ??= { value: decode(body, contentType) }).value
      const i = request.requestInfo
      const level = ctx.decision.level
      const event: Record<string, unknown> = {
        kind: 'Event',
        apiVersion: EVENT_API_VERSION,
        level,
        auditID: ctx.id,
        stage,
        requestURI: request.url,
        verb: i.verb,
        user: userOf(ctx.user)
      }
      if (impersonated !== undefined) event.impersonatedUser = userOf(impersonated)
      event.sourceIPs = sourceIPs(request)
      const ua = request.headers['user-agent']
      if (ua !== undefined) event.userAgent = ua
      if (i.isResourceRequest) {
        // After the handler has read the body, the object it names fills what the path does not
        // (the reference's LogRequestObject, at every level): a create's name, a write's uid and
        // resourceVersion. Before name generation, so a generateName create keeps no name.
        const meta = stage !== 'RequestReceived' && (i.verb === 'create' || i.verb === 'update') ? metadataOf(requestObjectOf(request, body, contentType, document)) : undefined
        const ref: Record<string, string> = { resource: i.resource }
        const namespace = i.namespace !== '' ? i.namespace : meta?.namespace
        if (namespace !== undefined && namespace !== '') ref.namespace = namespace
        const name = i.name !== '' ? i.name : meta?.name
        if (name !== undefined && name !== '') ref.name = name
        if (meta?.uid !== undefined && meta.uid !== '') ref.uid = meta.uid
        // The group as the client spelled it, upstream twin included: what the client asked for.
        if (i.apiGroup !== '') ref.apiGroup = i.pathGroup !== '' ? i.pathGroup : i.apiGroup
        ref.apiVersion = i.apiVersion
        if (meta?.resourceVersion !== undefined && meta.resourceVersion !== '') ref.resourceVersion = meta.resourceVersion
        if (i.subresource !== '') ref.subresource = i.subresource
        event.objectRef = ref
      }
      if (code !== undefined) {
        const status: Record<string, unknown> = { metadata: {} }
        if (code >= 400) {
          const answer = decode(payload, 'application/json')
          if (answer?.kind === 'Status') {
            for (const f of ['status', 'message', 'reason', 'details'] as const) if (answer[f] !== undefined) status[f] = answer[f]
          }
        }
        status.code = code
        event.responseStatus = status
      }
      // The body is decoded by the handler, after RequestReceived, as the reference server's is.
      if (atLeast(level, 'Request') && stage !== 'RequestReceived') {
        const requestObject = document()
        if (requestObject !== undefined) event.requestObject = ctx.decision.omitManagedFields ? withoutManagedFields(requestObject) : requestObject
      }
      if (atLeast(level, 'RequestResponse') && stage === 'ResponseComplete') {
        const responseObject = decode(payload, 'application/json')
        if (responseObject !== undefined) event.responseObject = ctx.decision.omitManagedFields ? withoutManagedFields(responseObject) : responseObject
      }
      event.requestReceivedTimestamp = microTime(ctx.receivedAt)
      event.stageTimestamp = microTime(at)
      if (ctx.annotations !== undefined) event.annotations = ctx.annotations
      return JSON.stringify(event)
    })
  }

  // After authentication, before impersonation: the policy sees the authenticated user, as the
  // reference server's audit filter does.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const id = request.auditId
    const decision = decide(request, request.user)
    if (decision.level === 'None') return done()
    const ctx: AuditContext = { id, decision, receivedAt: new Date(), user: request.user }
    request.auditContext = ctx
    emit(request, ctx, 'RequestReceived', undefined, ctx.receivedAt)
    if (request.requestInfo.verb === 'watch') {
      // A long-running request reports ResponseStarted when its headers go out.
      const raw = reply.raw
      const writeHead = raw.writeHead
      raw.writeHead = function (this: typeof raw, ...args: Parameters<typeof raw.writeHead>) {
        raw.writeHead = writeHead
        emit(request, ctx, 'ResponseStarted', args[0], new Date())
        return writeHead.apply(this, args)
      } as typeof raw.writeHead
    }
    done()
  })

  fastify.addHook('onSend', (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    const ctx = request.auditContext
    if (ctx !== null && ctx !== undefined) ctx.payload = payload
    done(null, payload)
  })

  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    let ctx = request.auditContext
    if (ctx === null || ctx === undefined) {
      // Refused before the audit hook ran (authentication): recorded as the reference server
      // records a failed authentication, at ResponseStarted with no user.
      if (reply.statusCode !== 401) return done()
      const decision = decide(request, undefined)
      if (decision.level === 'None') return done()
      ctx = { id: request.auditId, decision, receivedAt: new Date(Date.now() - reply.elapsedTime), user: undefined }
      emit(request, ctx, 'ResponseStarted', reply.statusCode, new Date())
      return done()
    }
    emit(request, ctx, 'ResponseComplete', reply.statusCode, new Date())
    done()
  })
}, { name: 'audit', dependencies: ['answer-headers', 'request-info', 'authn'] })
