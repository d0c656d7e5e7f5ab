// The request cleaner: approved, denied and failed requests go one hour after their last state
// change, pending ones after a day, and any request once its issued certificate has expired.
import { X509Certificate } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import { ApiError } from '../resources/status.js'
import { GROUPS } from '../resources/naming.js'
import { CONDITION_TYPES } from '../resources/certificatesigningrequests.js'
import { pemBlocks } from '../resources/certificate-request.js'
import { controllerCaller, controllerLoop } from './loop.js'

const HOUR_MS = 3_600_000
export const FINISHED_TTL_MS = HOUR_MS
export const PENDING_TTL_MS = 24 * HOUR_MS

export interface CsrCleanerOptions {
  /** The clock, in epoch milliseconds; tests inject one. */
  now?: () => number
}

/** When a request is due for removal (epoch ms). */
export function removalTime (csr: AnyObject): number {
  const times: number[] = []
  const certificate: string = csr.status?.certificate ?? ''
  if (certificate !== '') {
    const block = pemBlocks(Buffer.from(certificate, 'base64').toString('latin1')).find(b => b.type === 'CERTIFICATE')
    try {
      if (block !== undefined) times.push(Date.parse(new X509Certificate(block.der).validTo))
    } catch { /* validation admits only parseable certificates */ }
  }
  const finished = (csr.status?.conditions ?? []).filter((c: AnyObject) => (Object.values(CONDITION_TYPES) as string[]).includes(c.type) && c.status === 'True')
  if (finished.length > 0) {
    const changed = Math.max(...finished.map((c: AnyObject) => Date.parse(c.lastUpdateTime ?? c.lastTransitionTime ?? csr.metadata.creationTimestamp)))
    times.push(changed + FINISHED_TTL_MS)
  } else times.push(Date.parse(csr.metadata.creationTimestamp) + PENDING_TTL_MS)
  return Math.min(...times.filter(t => !Number.isNaN(t)))
}

export default fp(async function csrCleaner (fastify: FastifyInstance, opts: CsrCleanerOptions) {
  const now = opts.now ?? Date.now
  const csrs = () => fastify.resources.find({ group: GROUPS.certificates, resource: 'certificatesigningrequests' })!
  controllerLoop(fastify, {
    name: 'csrcleaner',
    watch: () => [csrs()],
    async sync () {
      const store = csrs()
      let next: number | undefined
      for (const csr of store.cachedObjects()) {
        const left = removalTime(csr) - now()
        if (left > 0) { next = Math.min(next ?? left, left); continue }
        try {
          await store.delete('', csr.metadata.name, { dryRun: false, preconditions: { uid: csr.metadata.uid } }, controllerCaller('csrcleaner'))
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
        }
      }
      return next
    }
  })
}, { name: 'controller:csrcleaner', dependencies: ['rest'] })
