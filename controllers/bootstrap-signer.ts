// The bootstrap signer (`--controllers=*,bootstrapsigner`): keeps `jws-kubeconfig-<token-id>`
// in the `cluster-info` ConfigMap of the public namespace, one detached JWS over its
// `kubeconfig` for each bootstrap token usable for signing, and none for tokens gone or expired.
import { isDeepStrictEqual } from 'node:util'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import { ApiError } from '../resources/status.js'
import { NAMESPACES, SECRET_TYPES } from '../resources/naming.js'
import { bootstrapExpiry } from '../auth/authenticators/bootstrap-token.js'
import { signDetached } from '../auth/bootstrap-jws.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

export const CLUSTER_INFO = 'cluster-info'
export const JWS_KEY_PREFIX = 'jws-kubeconfig-'

const decoded = (secret: AnyObject, key: string): string => {
  const v = secret.data?.[key]
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : ''
}

export default fp(async function bootstrapSigner (fastify: FastifyInstance, opts: { now?: () => number }) {
  const now = opts.now ?? Date.now
  const secrets = () => fastify.resources.find({ group: '', resource: 'secrets' })!
  const configmaps = () => fastify.resources.find({ group: '', resource: 'configmaps' })!
  controllerLoop(fastify, {
    name: 'bootstrapsigner',
    watch: () => [
      { store: secrets(), when: e => e.attrs.fields.type === SECRET_TYPES.bootstrapToken },
      { store: configmaps(), when: e => e.attrs.fields['metadata.name'] === CLUSTER_INFO }
    ],
    async sync () {
      const cached = configmaps().cachedObject(NAMESPACES.public, CLUSTER_INFO)
      if (cached === undefined) return undefined
      const content = cached.data?.kubeconfig
      const wanted: Record<string, string> = {}
      let next: number | undefined
      const store = secrets()
      for (const secret of store.cachedObjects(NAMESPACES.system)) {
        if (secret.type !== SECRET_TYPES.bootstrapToken || decoded(secret, 'usage-bootstrap-signing') !== 'true') continue
        const id = decoded(secret, 'token-id')
        const tokenSecret = decoded(secret, 'token-secret')
        if (!/^[a-z0-9]{6}$/.test(id) || !/^[a-z0-9]{16}$/.test(tokenSecret) || secret.metadata.name !== `bootstrap-token-${id}`) continue
        const expiry = bootstrapExpiry(secret)
        if (expiry !== undefined) {
          const left = expiry - now()
          if (left <= 0) continue
          next = Math.min(next ?? left, left)
        }
        if (typeof content === 'string') wanted[`${JWS_KEY_PREFIX}${id}`] = signDetached(content, id, tokenSecret)
      }
      const data: Record<string, string> = Object.fromEntries(Object.entries(cached.data ?? {}).filter(([k]) => !k.startsWith(JWS_KEY_PREFIX))) as Record<string, string>
      Object.assign(data, wanted)
      if (isDeepStrictEqual(data, cached.data ?? {})) return next
      try {
        await configmaps().update(NAMESPACES.public, CLUSTER_INFO, (old) => ({ ...old, metadata: { ...old.metadata, resourceVersion: cached.metadata.resourceVersion }, data }),
          { ...CONTROLLER_WRITE, subresource: '' }, controllerCaller('bootstrapsigner'))
      } catch (err) {
        if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
      }
      return next
    }
  })
}, { name: 'controller:bootstrapsigner', dependencies: ['rest'] })
