// The `kubernetes` Service in `default`: the first address of the service range, port 443
// (https) to this server's port, so in-cluster clients find the API server by name. A
// start-up write of every replica, as the reference server's bootstrap controller makes it:
// created when missing, its ports put back when they differ. (No Endpoints: this server keeps
// none, and runs no proxy that would route the address.)
import fp from 'fastify-plugin'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { CONTROLLER_USER, NAMESPACES } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import type { Caller } from '../storage/resource-store.js'

export interface KubernetesServiceOptions {
  /** The first address of the primary service range. */
  clusterIP: string
  /** The port this server listens on. */
  port: number
}

export const KUBERNETES_SERVICE_NAME = 'kubernetes'

export default fp(async function kubernetesService (fastify: FastifyInstance, opts: KubernetesServiceOptions) {
  const ports = [{ name: 'https', protocol: 'TCP', port: 443, targetPort: opts.port }]
  const caller = (): Caller => ({ user: { ...CONTROLLER_USER, groups: [...CONTROLLER_USER.groups] }, manager: 'kubernetes-service', warnings: [] })
  const writeOptions = { dryRun: false, fieldValidation: 'Strict' as const, force: false }

  fastify.addHook('onReady', async () => {
    const store = fastify.resources.find({ group: '', resource: 'services' })
    if (store === undefined) return
    const body = {
      metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACES.default, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: opts.clusterIP, clusterIPs: [opts.clusterIP], ipFamilyPolicy: 'SingleStack', sessionAffinity: 'None', ports }
    }
    // Looked up before the create, as the reference's controller does: a create of a Service that
    // exists claims its address first and is refused for that (422), not with the 409 of its name.
    const exists = (): Promise<boolean> => store.get(NAMESPACES.default, KUBERNETES_SERVICE_NAME).then(() => true, (err: unknown) => {
      if (err instanceof ApiError && err.code === 404) return false
      throw err
    })
    if (!await exists()) {
      try {
        await store.create(NAMESPACES.default, body, writeOptions, caller())
        return
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        // Another replica created it meanwhile (409, or 422 for its address): reconcile it below.
        // Otherwise its address is held by another Service: serve anyway, and say why it is missing.
        if (!await exists()) {
          fastify.log.warn({ err: err.message }, 'the kubernetes Service could not be created')
          return
        }
      }
    }
    try {
      await store.update(NAMESPACES.default, KUBERNETES_SERVICE_NAME, (current) => {
        const kept = (current.spec?.ports ?? []).map(({ nodePort: _n, ...p }: Record<string, unknown>) => p)
        return isDeepStrictEqual(kept, ports) ? current : { ...current, spec: { ...current.spec, ports } }
      }, { ...writeOptions, subresource: '' }, caller())
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      fastify.log.warn({ err: err.message }, 'the kubernetes Service could not be reconciled')
    }
  })
}, { name: 'controller:kubernetes-service', dependencies: ['rest'] })
