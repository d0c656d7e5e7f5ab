import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance } from 'fastify'
import { ApiError, badRequest, entityTooLarge, internalError, pathNotFound, unsupportedMediaType, type Status } from '../resources/status.js'
import type { RequestInfo } from './request-info.js'

/** Renders every error a handler throws as a k8s Status; unknown errors are a hidden 500. */
export function toApiError (err: FastifyError | Error): ApiError {
  if (err instanceof ApiError) return err
  const fe = err as FastifyError
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return entityTooLarge()
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return unsupportedMediaType(fe.message, [])
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH': return badRequest(fe.message)
  }
  if (fe.statusCode === 400) return badRequest(fe.message)
  if (fe.statusCode === 413) return entityTooLarge()
  if (fe.statusCode === 415) return unsupportedMediaType(fe.message, [])
  return internalError()
}

/**
 * A Status about the request's own resource, in the group the path asked for: the stores name
 * the group they store in, and a client that asked through the upstream twin (or another group's
 * form of the kind) reads its own spelling back (`leases.coordination.k8s.io "n1" not found`).
 */
function inPathGroup (status: Status, info: RequestInfo | undefined): Status {
  const details = status.details
  if (info === undefined || details === undefined || details.kind !== info.resource) return status
  const asked = info.pathGroup !== '' ? info.pathGroup : info.apiGroup
  const named = details.group ?? ''
  if (named === asked) return status
  const qualified = (group: string): string => group === '' ? info.resource : `${info.resource}.${group}`
  const message = status.message?.replace(new RegExp(`(?<![\\w.-])${escape(qualified(named))}(?=[ ":])`, 'g'), qualified(asked)).replaceAll(`API group "${named}"`, `API group "${asked}"`)
  const { group: _g, ...rest } = details
  return { ...status, message, details: asked === '' ? rest : { ...rest, group: asked } }
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export default fp(async function errors (fastify: FastifyInstance) {
  fastify.setErrorHandler(function (err, request, reply) {
    const apiErr = toApiError(err as Error)
    if (apiErr.code >= 500 && !(err instanceof ApiError)) request.log.error({ err }, 'request failed')
    void reply.code(apiErr.code).headers(apiErr.headers).type('application/json').send(JSON.stringify(inPathGroup(apiErr.status, request.requestInfo)))
  })
  fastify.setNotFoundHandler(function (request, reply) {
    const err = pathNotFound()
    void reply.code(404).type('application/json').send(JSON.stringify(err.status))
  })
}, { name: 'errors' })
