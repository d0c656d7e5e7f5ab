// apiserver_admission_webhook_rejection_count, in prom-client's default registry (the one
// /metrics serves), with the reference server's labels.
import { Counter, register } from 'prom-client'

export type RejectionErrorType = 'calling_webhook_error' | 'no_error' | 'apiserver_internal_error'

const NAME = 'apiserver_admission_webhook_rejection_count'

// Several apps in one process (tests) share the registry: the counter is made once.
const counter = (register.getSingleMetric(NAME) as Counter<string> | undefined) ?? new Counter({
  name: NAME,
  help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
  labelNames: ['name', 'operation', 'type', 'error_type', 'rejection_code']
})

export function observeRejection (name: string, type: 'admit' | 'validating', operation: string, errorType: RejectionErrorType, code: number): void {
  counter.inc({ name, operation, type, error_type: errorType, rejection_code: String(Math.min(code, 600)) })
}
