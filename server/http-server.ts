// The Fastify instance itself: HTTPS and client certificates, header and body limits, logging.
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import { clientErrorHandler, frameworkErrors, MAX_HEADER_BYTES } from '../plugins/client-errors.js'
import { BODY_LIMIT } from '../plugins/rest/index.js'
import type { AppOptions } from './options.js'

export function createHttpServer (opts: AppOptions): FastifyInstance {
  return Fastify({
    logger: opts.logger ?? false,
    logController: new LogController({ disableRequestLogging: opts.logRequests !== true }),
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    clientErrorHandler,
    frameworkErrors,
    // A graceful close serves what still arrives on an open connection (with Connection: close)
    // rather than Fastify's 503, whose body is no Status; a forced close answers 503.
    return503OnClosing: opts.shutdown === undefined,
    forceCloseConnections: opts.shutdown === undefined,
    ...(opts.tls === undefined
      ? {}
      : {
          https: {
            cert: opts.tls.cert,
            key: opts.tls.key,
            ca: opts.tls.clientCA,
            requestCert: opts.tls.clientCA !== undefined,
            rejectUnauthorized: false,
            minVersion: 'TLSv1.2' as const,
            maxHeaderSize: MAX_HEADER_BYTES
          }
        })
  }) as unknown as FastifyInstance}
