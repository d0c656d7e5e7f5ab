// Root CA publisher: the ConfigMap holding the cluster CA (`ca.crt`) in every active namespace.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ROOT_CA_CONFIGMAP } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

export default fp(async function rootCaPublisher (fastify: FastifyInstance, opts: { caCertPem: string }) {
  const namespaces = () => fastify.resources.find({ group: '', resource: 'namespaces' })!
  const configmaps = () => fastify.resources.find({ group: '', resource: 'configmaps' })!
  const caller = () => controllerCaller('root-ca-cert-publisher')
  controllerLoop(fastify, {
    name: 'root-ca-cert-publisher',
    watch: () => [namespaces(), { store: configmaps(), when: e => e.key.endsWith(`/${ROOT_CA_CONFIGMAP}`) }],
    async sync () {
      const store = configmaps()
      for (const ns of namespaces().cachedObjects()) {
        if (ns.metadata?.deletionTimestamp != null) continue
        const name: string = ns.metadata.name
        const cached = store.cachedObject(name, ROOT_CA_CONFIGMAP)
        try {
          if (cached === undefined) {
            await store.create(name, { metadata: { name: ROOT_CA_CONFIGMAP }, data: { 'ca.crt': opts.caCertPem } }, CONTROLLER_WRITE, caller())
          } else if (cached.data?.['ca.crt'] !== opts.caCertPem) {
            await store.update(name, ROOT_CA_CONFIGMAP, (old) => ({ ...old, data: { 'ca.crt': opts.caCertPem } }), { ...CONTROLLER_WRITE, subresource: '' }, caller())
          }
        } catch (err) {
          if (!(err instanceof ApiError && [403, 404, 409].includes(err.code))) throw err
        }
      }
      return undefined
    }
  })
}, { name: 'controller:root-ca-cert-publisher', dependencies: ['rest'] })
