// apiserver_admission_webhook_rejection_count with the reference server's labels: recorded
// through the server's metrics registry when one is decorated (`fastify.metrics`, which
// /metrics serves), else in prom-client's default registry.
import type { FastifyInstance } from 'fastify'
import { Counter, register } from 'prom-client'

export type RejectionErrorType = 'calling_webhook_error' | 'no_error' | 'apiserver_internal_error'
export type Observe = (name: string, operation: string, type: 'admit' | 'validating', errorType: RejectionErrorType, code: number) => void

const NAME = 'apiserver_admission_webhook_rejection_count'

/** The server's own metrics, when its metrics plugin is registered: looked up at each rejection, as it may register after admission. */
interface ServerMetrics { webhookRejection?: Observe }

let fallback: Counter<string> | undefined
function fallbackCounter (): Counter<string> {
  // Several apps in one process (tests) share the default registry: the counter is made once.
  fallback ??= (register.getSingleMetric(NAME) as Counter<string> | undefined) ?? new Counter({
    name: NAME,
    help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation, error type (calling_webhook_error, apiserver_internal_error or no_error) and the HTTP code the webhook gave (capped at 600).',
    labelNames: ['name', 'operation', 'type', 'error_type', 'rejection_code']
  })
  return fallback
}

export function rejectionObserver (fastify: FastifyInstance): Observe {
  return (name, operation, type, errorType, code) => {
    const server = (fastify as unknown as { metrics?: ServerMetrics }).metrics
    if (server?.webhookRejection !== undefined) { server.webhookRejection(name, operation, type, errorType, code); return }
    fallbackCounter().inc({ name, operation, type, error_type: errorType, rejection_code: String(Math.min(code, 600)) })
  }
}
