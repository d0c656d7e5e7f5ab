// The namespace namespaced examples are made in, ready for them.
import type { TestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { expectCode, getJson } from './client.js'

/**
 * Creates the namespace unless it exists, and waits until its controllers have prepared it:
 * admission refuses workloads until the namespace's default service account is there.
 */
export async function readyNamespace (api: TestApp, namespace: string): Promise<void> {
  const res = await api.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: namespace } } })
  expectCode(res, 201, 409)
  await eventually(() => getJson(api, `/api/v1/namespaces/${namespace}/serviceaccounts/default`), 20_000, 100)
}
