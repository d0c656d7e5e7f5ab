// The objects a pod names in its own namespace (secrets, config maps, claims), as the reference
// server's pod visitors find them: read by the Node authorizer's graph and by NodeRestriction.
import type { AnyObject } from './define.js'

/** Names under `ref[field]` of each object in a list, skipping blanks. */
const names = (values: unknown[], get: (v: AnyObject) => unknown): string[] =>
  values.map(v => get((v ?? {}) as AnyObject)).filter((n): n is string => typeof n === 'string' && n !== '')

/** Secrets a volume source names through a `secretRef`-style field (flex, iscsi, rbd, cephfs, csi...). */
function volumeSecretNames (source: AnyObject): string[] {
  const out: string[] = []
  for (const v of Object.values(source)) {
    if (typeof v !== 'object' || v === null) continue
    for (const field of ['secretRef', 'nodePublishSecretRef', 'nodeStageSecretRef', 'nodeExpandSecretRef', 'controllerPublishSecretRef', 'controllerExpandSecretRef']) {
      const ref = (v as AnyObject)[field]
      if (typeof ref?.name === 'string' && ref.name !== '') out.push(ref.name)
    }
    if (typeof (v as AnyObject).secretName === 'string' && source.secret === undefined) out.push((v as AnyObject).secretName)
  }
  return out
}

/** Everything a pod references in its own namespace, by kind. */
export function podReferences (pod: AnyObject): { secrets: string[], configmaps: string[], claims: string[] } {
  const spec = (pod.spec ?? {}) as AnyObject
  const secrets = names(spec.imagePullSecrets ?? [], v => v.name)
  const configmaps: string[] = []
  const claims: string[] = []
  for (const vol of (spec.volumes ?? []) as AnyObject[]) {
    if (vol.secret?.secretName) secrets.push(vol.secret.secretName)
    if (vol.configMap?.name) configmaps.push(vol.configMap.name)
    for (const src of (vol.projected?.sources ?? []) as AnyObject[]) {
      if (src.secret?.name) secrets.push(src.secret.name)
      if (src.configMap?.name) configmaps.push(src.configMap.name)
    }
    if (vol.persistentVolumeClaim?.claimName) claims.push(vol.persistentVolumeClaim.claimName)
    if (vol.ephemeral !== undefined && typeof vol.name === 'string') claims.push(`${pod.metadata?.name}-${vol.name}`)
    secrets.push(...volumeSecretNames(vol))
  }
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])] as AnyObject[]
  for (const c of containers) {
    for (const e of (c.envFrom ?? []) as AnyObject[]) {
      if (e.secretRef?.name) secrets.push(e.secretRef.name)
      if (e.configMapRef?.name) configmaps.push(e.configMapRef.name)
    }
    for (const e of (c.env ?? []) as AnyObject[]) {
      if (e.valueFrom?.secretKeyRef?.name) secrets.push(e.valueFrom.secretKeyRef.name)
      if (e.valueFrom?.configMapKeyRef?.name) configmaps.push(e.valueFrom.configMapKeyRef.name)
    }
  }
  return { secrets, configmaps, claims }
}
