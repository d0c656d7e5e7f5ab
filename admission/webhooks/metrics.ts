// apiserver_admission_webhook_rejection_count with the reference server's labels, through the
// server's metrics registry (`fastify.metrics`, which /metrics serves).
import type { FastifyInstance } from 'fastify'

export type RejectionErrorType = 'calling_webhook_error' | 'no_error' | 'apiserver_internal_error'
export type Observe = (name: string, operation: string, type: 'admit' | 'validating', errorType: RejectionErrorType, code: number) => void

export function rejectionObserver (fastify: FastifyInstance): Observe {
  // Looked up at each rejection: an app built without the metrics plugin (a unit test) counts nothing.
  return (name, operation, type, errorType, code) => { fastify.metrics?.webhookRejection(name, operation, type, errorType, code) }
}
