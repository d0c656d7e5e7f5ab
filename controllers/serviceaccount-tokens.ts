// Token controller: fills secrets of type service-account-token (token, ca.crt, namespace) for
// the account their annotation names, and deletes them once that account is gone.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { SECRET_TYPES, SERVICE_ACCOUNT_ANNOTATIONS } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64')

export default fp(async function serviceAccountTokenController (fastify: FastifyInstance, opts: { caCertPem?: string }) {
  const secrets = () => fastify.resources.find({ group: '', resource: 'secrets' })!
  const accounts = () => fastify.resources.find({ group: '', resource: 'serviceaccounts' })!
  const caller = () => controllerCaller('serviceaccount-token-controller')

  async function reconcile (secret: AnyObject): Promise<void> {
    const store = secrets()
    const ns: string = secret.metadata.namespace
    const name: string = secret.metadata.name
    const accountName = secret.metadata.annotations?.[SERVICE_ACCOUNT_ANNOTATIONS.name] as string
    const wantedUid = secret.metadata.annotations?.[SERVICE_ACCOUNT_ANNOTATIONS.uid] as string | undefined
    const account = accounts().cachedObject(ns, accountName)
    if (account === undefined || (wantedUid !== undefined && wantedUid !== '' && account.metadata.uid !== wantedUid)) {
      // The cache may be behind a just-created account: only storage may say it is gone.
      try {
        const stored = JSON.parse((await accounts().get(ns, accountName)).json) as AnyObject
        if (wantedUid === undefined || wantedUid === '' || stored.metadata.uid === wantedUid) return
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err
      }
      await store.delete(ns, name, { dryRun: false, preconditions: { uid: secret.metadata.uid } }, caller())
      return
    }
    const complete = secret.data?.token !== undefined && secret.data?.namespace !== undefined &&
      (opts.caCertPem === undefined || secret.data?.['ca.crt'] !== undefined)
    if (complete) return
    const token = await fastify.serviceAccountTokens.issueLegacy({ namespace: ns, name: accountName, uid: account.metadata.uid }, name)
    await store.update(ns, name, (old) => ({
      ...old,
      metadata: { ...old.metadata, annotations: { ...old.metadata.annotations, [SERVICE_ACCOUNT_ANNOTATIONS.uid]: account.metadata.uid } },
      data: {
        ...old.data,
        token: old.data?.token ?? b64(token),
        namespace: b64(ns),
        ...(opts.caCertPem === undefined ? {} : { 'ca.crt': b64(opts.caCertPem) })
      }
    }), { ...CONTROLLER_WRITE, subresource: '' }, caller())
  }

  controllerLoop(fastify, {
    name: 'serviceaccount-token',
    watch: () => [{ store: secrets(), when: e => e.attrs.fields.type === SECRET_TYPES.serviceAccountToken }, accounts()],
    async sync () {
      const store = secrets()
      for (const secret of store.cachedObjects()) {
        if (secret.type !== SECRET_TYPES.serviceAccountToken || secret.metadata?.deletionTimestamp != null) continue
        try {
          await reconcile(secret)
        } catch (err) {
          if (!(err instanceof ApiError && [404, 409].includes(err.code))) throw err
        }
      }
      return undefined
    }
  })
}, { name: 'controller:serviceaccount-token', dependencies: ['rest', 'service-account-tokens'] })
