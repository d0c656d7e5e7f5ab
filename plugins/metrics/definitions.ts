// The server's metrics: names, labels, help and stability as the reference server has them.
import type { MetricDefinition } from './stability.js'

export interface FamilyDefinition extends MetricDefinition {
  labels: readonly string[]
  /** Histograms only: bucket upper bounds. */
  buckets?: readonly number[]
}

const REQUEST_LABELS = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const

export const METRICS = {
  requestTotal: {
    name: 'apiserver_request_total',
    help: 'Requests served, by verb, dry run, group, version, resource, subresource, scope, component and HTTP status code.',
    stability: 'STABLE',
    labels: [...REQUEST_LABELS, 'code']
  },
  requestDuration: {
    name: 'apiserver_request_duration_seconds',
    help: 'Time to serve a request in seconds, by verb, dry run, group, version, resource, subresource, scope and component.',
    stability: 'STABLE',
    labels: REQUEST_LABELS,
    buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60]
  },
  currentInflight: {
    name: 'apiserver_current_inflight_requests',
    help: 'Number of requests being served now, read-only and mutating apart (long-running requests are not counted).',
    stability: 'STABLE',
    labels: ['request_kind']
  },
  requestTerminations: {
    name: 'apiserver_request_terminations_total',
    help: 'Number of requests which apiserver terminated in self-defense.',
    stability: 'ALPHA',
    labels: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code']
  },
  longRunning: {
    name: 'apiserver_longrunning_requests',
    help: 'Long-running requests (watches) open now, by verb, group, version, resource, subresource, scope and component.',
    stability: 'STABLE',
    labels: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component']
  },
  storageObjects: {
    name: 'apiserver_storage_objects',
    help: 'Objects stored per resource, as of the last scrape.',
    stability: 'STABLE',
    labels: ['resource']
  },
  watchEvents: {
    name: 'apiserver_watch_events_total',
    help: 'Events sent to watch clients, by group, version and resource.',
    stability: 'ALPHA',
    labels: ['group', 'version', 'resource']
  },
  admissionStep: {
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: 'Time in seconds of an admission step (admit or validate), by operation and whether it rejected the request.',
    stability: 'STABLE',
    labels: ['operation', 'rejected', 'type'],
    buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5]
  },
  webhookRejection: {
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Requests an admission webhook rejected or failed, by webhook name, operation, type (admit or validating), error type (calling_webhook_error, apiserver_internal_error or no_error) and the HTTP code the webhook gave (capped at 600).',
    stability: 'ALPHA',
    labels: ['name', 'operation', 'type', 'error_type', 'rejection_code']
  },
  policyCheckTotal: {
    name: 'apiserver_validating_admission_policy_check_total',
    help: 'Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    stability: 'ALPHA',
    labels: ['policy', 'policy_binding', 'error_type', 'enforcement_action']
  },
  policyCheckDuration: {
    name: 'apiserver_validating_admission_policy_check_duration_seconds',
    help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    stability: 'ALPHA',
    labels: ['policy', 'policy_binding', 'error_type', 'enforcement_action'],
    buckets: [0.0000005, 0.001, 0.01, 0.1, 1.0]
  },
  mutatingPolicyCheckTotal: {
    name: 'apiserver_mutating_admission_policy_check_total',
    help: 'Mutation admission policy check total, labeled by policy and further identified by binding.',
    stability: 'ALPHA',
    labels: ['policy', 'policy_binding', 'error_type']
  },
  mutatingPolicyCheckDuration: {
    name: 'apiserver_mutating_admission_policy_check_duration_seconds',
    help: 'Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.',
    stability: 'ALPHA',
    labels: ['policy', 'policy_binding', 'error_type'],
    buckets: [0.0000005, 0.001, 0.01, 0.1, 1.0]
  },
  podSecurityEvaluations: {
    name: 'pod_security_evaluations_total',
    help: 'Number of policy evaluations that occurred, not counting ignored or exempt requests.',
    stability: 'ALPHA',
    labels: ['decision', 'policy_level', 'policy_version', 'mode', 'request_operation', 'resource', 'subresource']
  },
  podSecurityExemptions: {
    name: 'pod_security_exemptions_total',
    help: 'Number of exempt requests, not counting ignored or out of scope requests.',
    stability: 'ALPHA',
    labels: ['request_operation', 'resource', 'subresource']
  },
  podSecurityErrors: {
    name: 'pod_security_errors_total',
    help: 'Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.',
    stability: 'ALPHA',
    labels: ['fatal', 'request_operation', 'resource', 'subresource']
  },
  requestedDeprecatedApis: {
    name: 'apiserver_requested_deprecated_apis',
    help: '1 for each deprecated API version that has been requested, by group, version, resource, subresource and the release that removes it.',
    stability: 'STABLE',
    labels: ['group', 'version', 'resource', 'subresource', 'removed_release']
  },
  storageRequestDuration: {
    name: 'apiserver_storage_db_request_duration_seconds',
    help: 'PostgreSQL statement latency in seconds, broken out by what the statement is for.',
    stability: 'ALPHA',
    labels: ['operation'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
  },
  storageWriteBatch: {
    name: 'apiserver_storage_db_write_batch_size',
    help: 'Writes committed together in one group-commit transaction.',
    stability: 'ALPHA',
    labels: [],
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256]
  }
} as const satisfies Record<string, FamilyDefinition>

const PL_FS = ['priority_level', 'flow_schema'] as const
const APF_DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30]

/** API Priority and Fairness (the reference's util/flowcontrol/metrics, names, levels and help as there). */
export const FLOWCONTROL_METRICS = {
  rejected: { name: 'apiserver_flowcontrol_rejected_requests_total', help: 'Number of requests rejected by API Priority and Fairness subsystem', stability: 'BETA', labels: [...PL_FS, 'reason'] },
  dispatched: { name: 'apiserver_flowcontrol_dispatched_requests_total', help: 'Number of requests executed by API Priority and Fairness subsystem', stability: 'BETA', labels: PL_FS },
  inqueueRequests: { name: 'apiserver_flowcontrol_current_inqueue_requests', help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', stability: 'BETA', labels: PL_FS },
  inqueueSeats: { name: 'apiserver_flowcontrol_current_inqueue_seats', help: 'Number of seats currently pending in queues of the API Priority and Fairness subsystem', stability: 'ALPHA', labels: PL_FS },
  queueLength: { name: 'apiserver_flowcontrol_request_queue_length_after_enqueue', help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued', stability: 'ALPHA', labels: PL_FS, buckets: [0, 10, 25, 50, 100, 250, 500, 1000] },
  executingRequests: { name: 'apiserver_flowcontrol_current_executing_requests', help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem', stability: 'BETA', labels: PL_FS },
  executingSeats: { name: 'apiserver_flowcontrol_current_executing_seats', help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem', stability: 'BETA', labels: PL_FS },
  waitDuration: { name: 'apiserver_flowcontrol_request_wait_duration_seconds', help: 'Length of time a request spent waiting in its queue', stability: 'BETA', labels: [...PL_FS, 'execute'], buckets: APF_DURATION_BUCKETS },
  executionDuration: { name: 'apiserver_flowcontrol_request_execution_seconds', help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem', stability: 'ALPHA', labels: [...PL_FS, 'type'], buckets: APF_DURATION_BUCKETS },
  estimatedSeats: { name: 'apiserver_flowcontrol_work_estimated_seats', help: 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness', stability: 'ALPHA', labels: PL_FS, buckets: [1, 2, 4, 10] },
  nominalLimit: { name: 'apiserver_flowcontrol_nominal_limit_seats', help: 'Nominal number of execution seats configured for each priority level', stability: 'BETA', labels: ['priority_level'] },
  lowerLimit: { name: 'apiserver_flowcontrol_lower_limit_seats', help: 'Configured lower bound on number of execution seats available to each priority level', stability: 'ALPHA', labels: ['priority_level'] },
  upperLimit: { name: 'apiserver_flowcontrol_upper_limit_seats', help: 'Configured upper bound on number of execution seats available to each priority level', stability: 'ALPHA', labels: ['priority_level'] },
  currentLimit: { name: 'apiserver_flowcontrol_current_limit_seats', help: 'current derived number of execution seats available to each priority level', stability: 'ALPHA', labels: ['priority_level'] },
  // Timing histograms (families.timingHistogram): a level's time at each ratio, in nanoseconds.
  seatUtilization: {
    name: 'apiserver_flowcontrol_priority_level_seat_utilization',
    help: 'Observations, at the end of every nanosecond, of utilization of seats for any stage of execution (but only initial stage for WATCHes)',
    stability: 'ALPHA',
    // The reference's constant label phase="executing", as an ordinary label always given that value.
    labels: ['phase', 'priority_level'],
    buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1]
  },
  requestUtilization: {
    name: 'apiserver_flowcontrol_priority_level_request_utilization',
    help: 'Observations, at the end of every nanosecond, of number of requests (as a fraction of the relevant limit) waiting or in any stage of execution (but only initial stage for WATCHes)',
    stability: 'ALPHA',
    labels: ['phase', 'priority_level'],
    buckets: [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1]
  },
  readVsWrite: {
    name: 'apiserver_flowcontrol_read_vs_write_current_requests',
    help: 'Observations, at the end of every nanosecond, of the number of requests (as a fraction of the relevant limit) waiting or in regular stage of execution',
    stability: 'ALPHA',
    labels: ['phase', 'request_kind'],
    buckets: [0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1]
  },
  concurrencyLimit: { name: 'apiserver_flowcontrol_request_concurrency_limit', help: 'Nominal number of execution seats configured for each priority level', stability: 'ALPHA', deprecatedVersion: '1.30.0', labels: ['priority_level'] },
  concurrencyInUse: { name: 'apiserver_flowcontrol_request_concurrency_in_use', help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem', stability: 'ALPHA', deprecatedVersion: '1.31.0', labels: PL_FS },
  noAccommodation: { name: 'apiserver_flowcontrol_request_dispatch_no_accommodation_total', help: 'Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats', stability: 'ALPHA', labels: PL_FS },
  watchCountSamples: { name: 'apiserver_flowcontrol_watch_count_samples', help: 'count of watchers for mutating requests in API Priority and Fairness', stability: 'ALPHA', labels: PL_FS, buckets: [0, 1, 10, 100, 1000, 10000] },
  demandSeats: {
    name: 'apiserver_flowcontrol_demand_seats',
    help: 'Observations, at the end of every nanosecond, of (the number of seats each priority level could use) / (nominal number of seats for that level)',
    stability: 'ALPHA',
    labels: ['priority_level'],
    buckets: [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6]
  },
  demandHighWatermark: { name: 'apiserver_flowcontrol_demand_seats_high_watermark', help: 'High watermark, over last adjustment period, of demand_seats', stability: 'ALPHA', labels: ['priority_level'] },
  demandAverage: { name: 'apiserver_flowcontrol_demand_seats_average', help: 'Time-weighted average, over last adjustment period, of demand_seats', stability: 'ALPHA', labels: ['priority_level'] },
  demandStdev: { name: 'apiserver_flowcontrol_demand_seats_stdev', help: 'Time-weighted standard deviation, over last adjustment period, of demand_seats', stability: 'ALPHA', labels: ['priority_level'] },
  demandSmoothed: { name: 'apiserver_flowcontrol_demand_seats_smoothed', help: 'Smoothed seat demands', stability: 'ALPHA', labels: ['priority_level'] }
} as const satisfies Record<string, FamilyDefinition>
