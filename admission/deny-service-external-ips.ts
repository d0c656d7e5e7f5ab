// DenyServiceExternalIPs (off by default): no new use of a Service's spec.externalIPs, which
// lets any Service claim traffic for an address (CVE-2020-8554). A Service created with
// external IPs is refused, and so is an update that adds one; keeping or removing them is allowed.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'

const SERVICES = { group: '', resource: 'services' }
const externalIPs = (svc: AnyObject | undefined): string[] => Array.isArray(svc?.spec?.externalIPs) ? svc.spec.externalIPs : []

/** Whether every external IP of the new object was already on the old one. */
export function addsNoExternalIP (obj: AnyObject | undefined, old: AnyObject | undefined): boolean {
  const before = new Set(externalIPs(old))
  return externalIPs(obj).every(ip => before.has(ip))
}

export default fp(async function denyServiceExternalIPs (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'DenyServiceExternalIPs',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'services',
    validate (a) {
      if (addsNoExternalIP(a.object, a.oldObject)) return
      throw forbidden(SERVICES, a.name, 'Use of external IPs is denied by admission control')
    }
  })
}, { name: 'admission:deny-service-external-ips', dependencies: ['admission'] })
