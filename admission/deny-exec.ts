// DenyEscalatingExec and DenyExecOnPrivileged (deprecated, off by default): exec and attach
// (CONNECT on pods/exec and pods/attach) are refused into a pod with a privileged container,
// and, for DenyEscalatingExec, into one sharing the host's network, PID or IPC namespace.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError, forbidden } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'

const PODS = { group: '', resource: 'pods' }

interface Checks { hostNetwork: boolean, hostPID: boolean, hostIPC: boolean, privileged: boolean }

const isPrivileged = (pod: Readonly<AnyObject>): boolean =>
  [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])]
    .some((c: AnyObject) => c.securityContext?.privileged === true)

function denyExec (name: string, checks: Checks) {
  return {
    name,
    handles: (a: AdmissionAttributes) => a.operation === 'CONNECT' && a.resource.group === '' && a.resource.plural === 'pods' && (a.subresource === 'exec' || a.subresource === 'attach'),
    async validate (a: AdmissionAttributes) {
      const refuse = (why: string): ApiError => forbidden(PODS, a.name, why)
      const pod = await a.lookup({ group: '', resource: 'pods' }, a.namespace, a.name)
      if (pod === undefined) throw refuse(`pods ${JSON.stringify(a.name)} not found`)
      const spec: Readonly<AnyObject> = pod.spec ?? {}
      if (checks.hostNetwork && spec.hostNetwork === true) throw refuse('cannot exec into or attach to a container using host network')
      if (checks.hostPID && spec.hostPID === true) throw refuse('cannot exec into or attach to a container using host pid')
      if (checks.hostIPC && spec.hostIPC === true) throw refuse('cannot exec into or attach to a container using host ipc')
      if (checks.privileged && isPrivileged(pod)) throw refuse('cannot exec into or attach to a privileged container')
    }
  }
}

const denyExecPlugin = (name: string, checks: Checks) => fp(async function denyExecPlugin (fastify: FastifyInstance) {
  fastify.admission.add(denyExec(name, checks))
}, { name: `admission:${name}`, dependencies: ['admission'] })

export const denyEscalatingExec = denyExecPlugin('DenyEscalatingExec', { hostNetwork: true, hostPID: true, hostIPC: true, privileged: true })
export const denyExecOnPrivileged = denyExecPlugin('DenyExecOnPrivileged', { hostNetwork: false, hostPID: false, hostIPC: false, privileged: true })
