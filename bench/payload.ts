// The benchmark's object (a ConfigMap of about 1 KiB) and latency summaries, shared by the
// orchestrator, the load generator and the ceilings.

/**
 * A ConfigMap whose JSON body is `bytes` long (give or take the digits of the name), padded with
 * one data value. `extra` adds data entries; a `resourceVersion` entry goes to metadata instead.
 */
export function configMapBody (name: string, bytes: number, extra: Record<string, string> = {}): string {
  const { resourceVersion, ...data } = extra
  const rv = resourceVersion === undefined || resourceVersion === '' ? '' : `,"resourceVersion":"${resourceVersion}"`
  let entries = ''
  for (const [k, v] of Object.entries(data)) entries += `${JSON.stringify(k)}:${JSON.stringify(v)},`
  const head = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"${rv},"labels":{"app":"bench"}},"data":{${entries}"payload":"`
  const tail = '"}}'
  return head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail
}

/** The custom kind the `custom` workload creates: a schema with constraints and two CEL rules. */
export const BENCH_CRD = {
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.bench.example.com' },
  spec: {
    group: 'bench.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [{
      name: 'v1',
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              required: ['replicas', 'payload'],
              properties: {
                replicas: { type: 'integer', minimum: 0, maximum: 1000 },
                minReplicas: { type: 'integer', minimum: 0, default: 1 },
                tier: { type: 'string', enum: ['web', 'batch'] },
                payload: { type: 'string', maxLength: 4096 }
              },
              'x-kubernetes-validations': [
                { rule: 'self.minReplicas <= self.replicas', message: 'minReplicas must not exceed replicas' },
                { rule: "self.tier != 'batch' || self.replicas <= 100", message: 'batch widgets run at most 100 replicas' }
              ]
            }
          }
        }
      }
    }]
  }
}

/** A Widget (BENCH_CRD) whose JSON body is about `bytes` long, as configMapBody's. */
export function customObjectBody (name: string, bytes: number): string {
  const head = `{"apiVersion":"bench.example.com/v1","kind":"Widget","metadata":{"name":"${name}","labels":{"app":"bench"}},"spec":{"replicas":3,"tier":"web","payload":"`
  const tail = '"}}'
  return head + 'x'.repeat(Math.max(0, Math.min(4096, bytes - head.length - tail.length))) + tail
}

export interface LatencySummary { count: number, p50: number, p99: number, max: number, mean: number }

export function latencySummary (ms: number[]): LatencySummary {
  if (ms.length === 0) return { count: 0, p50: NaN, p99: NaN, max: NaN, mean: NaN }
  const sorted = Float64Array.from(ms).sort()
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
  let sum = 0
  for (const v of sorted) sum += v
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]!, mean: sum / sorted.length }
}
