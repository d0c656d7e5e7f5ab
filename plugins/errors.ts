import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance } from 'fastify'
import { ApiError, badRequest, entityTooLarge, internalError, pathNotFound, unsupportedMediaType } from '../resources/status.js'

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

export default fp(async function errors (fastify: FastifyInstance) {
  fastify.setErrorHandler(function (err, request, reply) {
    const apiErr = toApiError(err as Error)
    if (apiErr.code >= 500 && !(err instanceof ApiError)) request.log.error({ err }, 'request failed')
    void reply.code(apiErr.code).headers(apiErr.headers).type('application/json').send(JSON.stringify(apiErr.status))
  })
  fastify.setNotFoundHandler(function (request, reply) {
    const err = pathNotFound()
    void reply.code(404).type('application/json').send(JSON.stringify(err.status))
  })
}, { name: 'errors' })
