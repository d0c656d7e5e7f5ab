// ServiceAccount: every new pod runs as an account that exists (`default` unless it names one),
// gets the account's image pull secrets when it has none, and, unless the account or the pod
// turns automount off, a projected token volume mounted in every container. Mirror pods are
// left unchanged but may reference neither accounts nor secrets.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { MIRROR_POD_ANNOTATION, POD_SERVICE_ACCOUNT, ROOT_CA_CONFIGMAP, SERVICE_ACCOUNTS } from '../resources/naming.js'
import { randomNameSuffix } from '../resources/meta.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'

const PODS = { group: '', resource: 'pods' }
/** The reference server's bound-token lifetime for pods: a little over an hour, so it can tell them apart. */
export const POD_TOKEN_EXPIRATION_SECONDS = 3607
/** Octal 0644, set explicitly as the reference server does. */
const PROJECTED_DEFAULT_MODE = 420
/** The default account is made by a controller just after its namespace: wait for it a little. */
const DEFAULT_ACCOUNT_ATTEMPTS = 10

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** The projected volume source of the pod token, the cluster CA and the namespace. */
export function tokenVolumeSource (): AnyObject {
  return {
    defaultMode: PROJECTED_DEFAULT_MODE,
    sources: [
      { serviceAccountToken: { expirationSeconds: POD_TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }
    ]
  }
}

async function findAccount (a: AdmissionAttributes, name: string): Promise<Readonly<AnyObject>> {
  const attempts = name === SERVICE_ACCOUNTS.defaultName ? DEFAULT_ACCOUNT_ATTEMPTS : 1
  const interval = 100 + Math.floor(Math.random() * 100)
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(interval)
    const account = await a.lookup({ group: '', resource: 'serviceaccounts' }, a.namespace, name)
    if (account !== undefined) return account
  }
  throw forbidden(PODS, a.name, `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`)
}

const allContainers = (spec: AnyObject): AnyObject[] => [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]

function automount (account: Readonly<AnyObject>, pod: AnyObject): boolean {
  if (typeof pod.spec?.automountServiceAccountToken === 'boolean') return pod.spec.automountServiceAccountToken
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken
  return true
}

function mountToken (spec: AnyObject): void {
  spec.volumes ??= []
  const existing = (spec.volumes as AnyObject[]).find(v => typeof v.name === 'string' && v.name.startsWith(POD_SERVICE_ACCOUNT.volumePrefix))
  const volumeName: string = existing?.name ?? `${POD_SERVICE_ACCOUNT.volumePrefix}${randomNameSuffix()}`
  let needed = false
  // Init containers first, then containers, as the reference server does; a container with
  // its own mount at the token path keeps it.
  for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])] as AnyObject[]) {
    const mounts: AnyObject[] = container.volumeMounts ?? []
    if (mounts.some(m => m.mountPath === POD_SERVICE_ACCOUNT.mountPath)) continue
    container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: POD_SERVICE_ACCOUNT.mountPath }]
    needed = true
  }
  if (existing === undefined && needed) spec.volumes.push({ name: volumeName, projected: tokenVolumeSource() })
  if (spec.volumes.length === 0) delete spec.volumes
}

/** Every secret name a pod refers to, for the mirror-pod rule. */
function referencesSecrets (spec: AnyObject): boolean {
  if ((spec.imagePullSecrets ?? []).length > 0) return true
  for (const c of allContainers(spec)) {
    if ((c.envFrom ?? []).some((e: AnyObject) => e.secretRef !== undefined)) return true
    if ((c.env ?? []).some((e: AnyObject) => e.valueFrom?.secretKeyRef !== undefined)) return true
  }
  const namesSecret = (source: unknown): boolean => {
    if (source === null || typeof source !== 'object') return false
    return Object.entries(source as AnyObject).some(([k, v]) => /secretref$/i.test(k) || k === 'secret' || namesSecret(v))
  }
  return (spec.volumes ?? []).some((v: AnyObject) => namesSecret({ ...v, name: undefined }))
}

function checkMirrorPod (a: AdmissionAttributes, spec: AnyObject): void {
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') throw forbidden(PODS, a.name, 'a mirror pod may not reference service accounts')
  if (referencesSecrets(spec)) throw forbidden(PODS, a.name, 'a mirror pod may not reference secrets')
  for (const v of spec.volumes ?? []) {
    if ((v.projected?.sources ?? []).some((s: AnyObject) => s.serviceAccountToken != null)) {
      throw forbidden(PODS, a.name, 'a mirror pod may not use ServiceAccountToken volume projections')
    }
  }
}

/** With the enforce annotation, a pod may use only the secrets its account lists. */
function limitSecretReferences (a: AdmissionAttributes, account: Readonly<AnyObject>, spec: AnyObject): void {
  const accountName: string = account.metadata.name
  const mountable = new Set((account.secrets ?? []).map((s: AnyObject) => s.name))
  const refuse = (why: string): never => { throw forbidden(PODS, a.name, `${why} is not allowed because service account ${accountName} does not reference that secret`) }
  for (const v of spec.volumes ?? []) {
    if (v.secret != null && !mountable.has(v.secret.secretName)) refuse(`volume with secret.secretName="${String(v.secret.secretName)}"`)
  }
  for (const [list, what] of [[spec.initContainers, 'init container'], [spec.containers, 'container']] as const) {
    for (const c of list ?? []) {
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef
        if (ref != null && !mountable.has(ref.name)) refuse(`${what} ${String(c.name)} with envVar ${String(e.name)} referencing secret.secretName="${String(ref.name)}"`)
      }
    }
  }
  const pullable = new Set((account.imagePullSecrets ?? []).map((s: AnyObject) => s.name))
  for (const [i, ref] of (spec.imagePullSecrets ?? []).entries()) {
    if (!pullable.has(ref.name)) {
      throw forbidden(PODS, a.name, `imagePullSecrets[${i as number}].name="${String(ref.name)}" is not allowed because service account ${accountName} does not reference that imagePullSecret`)
    }
  }
}

const isMirrorPod = (pod: AnyObject): boolean => pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined

export default fp(async function serviceAccountAdmission (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'ServiceAccount',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined,
    async mutate (a) {
      const pod = a.object!
      if (isMirrorPod(pod)) return
      const spec: AnyObject = pod.spec ??= {}
      if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') {
        // The deprecated v1 field stands in for the name, as decoding does upstream.
        const deprecated = typeof spec.serviceAccount === 'string' && spec.serviceAccount !== '' ? spec.serviceAccount as string : undefined
        spec.serviceAccountName = deprecated ?? SERVICE_ACCOUNTS.defaultName
        spec.serviceAccount = spec.serviceAccountName
      }
      const account = await findAccount(a, spec.serviceAccountName)
      if (automount(account, pod)) mountToken(spec)
      if ((spec.imagePullSecrets ?? []).length === 0 && (account.imagePullSecrets ?? []).length > 0) {
        spec.imagePullSecrets = account.imagePullSecrets.map((s: AnyObject) => ({ ...s }))
      }
    },
    async validate (a) {
      const pod = a.object!
      const spec: AnyObject = pod.spec ?? {}
      if (isMirrorPod(pod)) return checkMirrorPod(a, spec)
      if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') {
        throw forbidden(PODS, a.name, `no service account specified for pod ${a.namespace}/${a.name}`)
      }
      const account = await findAccount(a, spec.serviceAccountName)
      if (account.metadata?.annotations?.[POD_SERVICE_ACCOUNT.enforceMountableSecrets] === 'true') limitSecretReferences(a, account, spec)
    }
  })
}, { name: 'admission:service-account', dependencies: ['admission'] })
