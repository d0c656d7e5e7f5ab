// Warnings for deprecated content, worded as the reference server's per-kind warnings
// (pkg/api/{pod,node,persistentvolume,persistentvolumeclaim,storage,service}): the kinds that
// carry pod specs, node selectors, volume sources or claim specs call these from their
// strategy's warningsOnCreate and warningsOnUpdate. Names the server spells with its own domain
// (labels, annotations) are warned about in that spelling; node labels in the upstream spelling
// too, since node agents may send them (NODE_LABEL_DOMAINS).
import { DEPRECATED_ANNOTATIONS, NODE_LABEL_DOMAINS, POD_SECURITY } from './naming.js'
import { milliValue } from './quantity.js'
import type { AnyObject } from './define.js'

type Obj = AnyObject

// field.Path's String(): `a.b[0].c`, map keys in brackets.
const key = (path: string, k: string): string => `${path}[${k}]`
const child = (path: string, name: string): string => path === '' ? name : `${path}.${name}`

const DEPRECATED_NODE_LABELS = new Map<string, string>(
  NODE_LABEL_DOMAINS.filter(d => d.allowed.length > 0).flatMap(({ domain: d }) => [
    [`beta.${d}/arch`, `deprecated since v1.14; use "${d}/arch" instead`],
    [`beta.${d}/os`, `deprecated since v1.14; use "${d}/os" instead`],
    [`failure-domain.beta.${d}/region`, `deprecated since v1.17; use "topology.${d}/region" instead`],
    [`failure-domain.beta.${d}/zone`, `deprecated since v1.17; use "topology.${d}/zone" instead`],
    [`beta.${d}/instance-type`, `deprecated since v1.17; use "node.${d}/instance-type" instead`],
    [`app.${d}/created-by`, 'deprecated since v1.9'],
    [`scheduler.alpha.${d}/preferAvoidPods`, 'deprecated since v1.22; use Taints and Tolerations instead'],
    [`node-role.${d}/master`, `use "node-role.${d}/control-plane" instead`]
  ] as Array<[string, string]>))

/** Why a node label key is deprecated, or undefined when it is not. */
export const nodeLabelDeprecation = (labelKey: string): string | undefined => DEPRECATED_NODE_LABELS.get(labelKey)

/** A NodeSelectorTerm's match expressions on deprecated node labels (pod and PV node affinity). */
export function nodeSelectorTermWarnings (term: Obj | undefined, path: string): string[] {
  const out: string[] = []
  ;(term?.matchExpressions ?? []).forEach((e: Obj, i: number) => {
    const msg = nodeLabelDeprecation(e?.key)
    if (msg !== undefined) out.push(`${path}.matchExpressions[${i}].key: ${String(e.key)} is ${msg}`)
  })
  return out
}

/** A label selector over nodes (CSIStorageCapacity's nodeTopology), in the reference's words for it. */
export function nodeLabelSelectorWarnings (selector: Obj | undefined, path: string): string[] {
  const out: string[] = []
  ;(selector?.matchExpressions ?? []).forEach((e: Obj, i: number) => {
    const msg = nodeLabelDeprecation(e?.key)
    if (msg !== undefined) out.push(`${path}.matchExpressions[${i}]: ${String(e.key)} is ${msg}`)
  })
  for (const label of Object.keys(selector?.matchLabels ?? {})) {
    const msg = nodeLabelDeprecation(label)
    if (msg !== undefined) out.push(`${path}.matchLabels.${label}: ${msg}`)
  }
  return out
}

const STORAGE_CLASS_ANNOTATION = DEPRECATED_ANNOTATIONS.betaStorageClass
const MOUNT_OPTIONS_ANNOTATION = DEPRECATED_ANNOTATIONS.betaMountOptions

// The in-tree plugins the reference warns about, by the field that selects them; the name in
// the message is the Go field's (`storageOS`), not always the JSON one (`storageos`).
const PLUGIN_WARNINGS: ReadonlyArray<{ field: string, name: string, message: string, pod: boolean, pv: boolean }> = [
  { field: 'photonPersistentDisk', name: 'photonPersistentDisk', message: 'deprecated in v1.11, non-functional in v1.16+', pod: true, pv: true },
  { field: 'gitRepo', name: 'gitRepo', message: 'deprecated in v1.11', pod: true, pv: false },
  { field: 'scaleIO', name: 'scaleIO', message: 'deprecated in v1.16, non-functional in v1.22+', pod: true, pv: true },
  { field: 'flocker', name: 'flocker', message: 'deprecated in v1.22, non-functional in v1.25+', pod: true, pv: false },
  { field: 'storageos', name: 'storageOS', message: 'deprecated in v1.22, non-functional in v1.25+', pod: true, pv: true },
  { field: 'quobyte', name: 'quobyte', message: 'deprecated in v1.22, non-functional in v1.25+', pod: true, pv: false },
  { field: 'glusterfs', name: 'glusterfs', message: 'deprecated in v1.25, non-functional in v1.26+', pod: true, pv: true },
  { field: 'cephfs', name: 'cephfs', message: 'deprecated in v1.28, non-functional in v1.31+', pod: true, pv: true },
  { field: 'rbd', name: 'rbd', message: 'deprecated in v1.28, non-functional in v1.31+', pod: true, pv: true }
]
// The reference checks the PV's sources in this order.
const PV_PLUGIN_ORDER = ['cephfs', 'photonPersistentDisk', 'scaleIO', 'storageos', 'glusterfs', 'rbd']

/** A PersistentVolume (GetWarningsForPersistentVolume). */
export function persistentVolumeWarnings (pv: Obj): string[] {
  const out: string[] = []
  const annotations = pv.metadata?.annotations ?? {}
  const spec = pv.spec ?? {}
  if (Object.hasOwn(annotations, STORAGE_CLASS_ANNOTATION)) out.push(`${key('metadata.annotations', STORAGE_CLASS_ANNOTATION)}: deprecated since v1.8; use "storageClassName" attribute instead`)
  if (Object.hasOwn(annotations, MOUNT_OPTIONS_ANNOTATION)) out.push(`${key('metadata.annotations', MOUNT_OPTIONS_ANNOTATION)}: deprecated since v1.31; use "mountOptions" attribute instead`)
  if (spec.persistentVolumeReclaimPolicy === 'Recycle') {
    out.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.')
  }
  ;(spec.nodeAffinity?.required?.nodeSelectorTerms ?? []).forEach((term: Obj, i: number) => {
    out.push(...nodeSelectorTermWarnings(term, `spec.nodeAffinity.required.nodeSelectorTerms[${i}]`))
  })
  for (const field of PV_PLUGIN_ORDER) {
    const p = PLUGIN_WARNINGS.find(w => w.field === field)!
    if (spec[field] != null) out.push(`spec.${p.name}: ${p.message}`)
  }
  return out
}

const fractional = (quantity: unknown): boolean => typeof quantity === 'string' && milliValue(quantity) % 1000n !== 0n

/** A claim spec's storage request and limit that are not whole bytes (GetWarningsForPersistentVolumeClaimSpec). */
export function claimSpecWarnings (spec: Obj | undefined, path: string): string[] {
  const out: string[] = []
  for (const part of ['requests', 'limits']) {
    const value = spec?.resources?.[part]?.storage
    if (fractional(value)) out.push(`${key(`${path}.resources.${part}`, 'storage')}: fractional byte value "${String(value)}" is invalid, must be an integer`)
  }
  return out
}

/** A PersistentVolumeClaim (GetWarningsForPersistentVolumeClaim). */
export function persistentVolumeClaimWarnings (pvc: Obj): string[] {
  const out: string[] = []
  if (Object.hasOwn(pvc.metadata?.annotations ?? {}, STORAGE_CLASS_ANNOTATION)) {
    out.push(`${key('metadata.annotations', STORAGE_CLASS_ANNOTATION)}: deprecated since v1.8; use "storageClassName" attribute instead`)
  }
  return [...out, ...claimSpecWarnings(pvc.spec, 'spec')]
}

const DEPRECATED_POD_ANNOTATIONS: ReadonlyArray<[string, string]> = [
  [DEPRECATED_ANNOTATIONS.criticalPod, 'non-functional in v1.16+; use the "priorityClassName" field instead'],
  [DEPRECATED_ANNOTATIONS.sysctls, 'non-functional in v1.11+; use the "sysctls" field instead'],
  [DEPRECATED_ANNOTATIONS.unsafeSysctls, 'non-functional in v1.11+; use the "sysctls" field instead']
]
const SECCOMP_MESSAGE = 'non-functional in v1.27+; use the "seccompProfile" field instead'

/**
 * A pod's spec and metadata, or a pod template's under `prefix` (`spec.template`): the
 * deprecated parts of the reference's warningsForPodSpecAndMeta.
 */
export function podSpecWarnings (spec: Obj | undefined, meta: Obj | undefined, prefix = ''): string[] {
  const out: string[] = []
  const s = spec ?? {}
  const annotations: Obj = meta?.annotations ?? {}
  const specPath = child(prefix, 'spec')
  const annotationsPath = child(prefix, 'metadata.annotations')
  for (const k of Object.keys(s.nodeSelector ?? {})) {
    const msg = nodeLabelDeprecation(k)
    if (msg !== undefined) out.push(`${key(`${specPath}.nodeSelector`, k)}: ${msg}`)
  }
  const nodeAffinity = s.affinity?.nodeAffinity
  ;(nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []).forEach((term: Obj, i: number) => {
    out.push(...nodeSelectorTermWarnings(term, `${specPath}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`))
  })
  ;(nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term: Obj, i: number) => {
    out.push(...nodeSelectorTermWarnings(term?.preference, `${specPath}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`))
  })
  ;(s.topologySpreadConstraints ?? []).forEach((t: Obj, i: number) => {
    const msg = nodeLabelDeprecation(t?.topologyKey)
    if (msg !== undefined) out.push(`${specPath}.topologySpreadConstraints[${i}].topologyKey: ${String(t.topologyKey)} is ${msg}`)
  })
  for (const [k, msg] of DEPRECATED_POD_ANNOTATIONS) {
    if (Object.hasOwn(annotations, k)) out.push(`${key(annotationsPath, k)}: ${msg}`)
  }
  ;(s.volumes ?? []).forEach((v: Obj, i: number) => {
    const at = `${specPath}.volumes[${i}]`
    for (const p of PLUGIN_WARNINGS) {
      if (p.pod && v?.[p.field] != null) out.push(`${at}.${p.name}: ${p.message}`)
    }
    if (v?.ephemeral?.volumeClaimTemplate != null) out.push(...claimSpecWarnings(v.ephemeral.volumeClaimTemplate.spec, `${at}.ephemeral.volumeClaimTemplate.spec`))
  })
  if (s.securityContext?.seccompProfile == null && Object.hasOwn(annotations, POD_SECURITY.seccompPodAnnotation)) {
    out.push(`${key(annotationsPath, POD_SECURITY.seccompPodAnnotation)}: ${SECCOMP_MESSAGE}`)
  }
  for (const c of [...(s.initContainers ?? []), ...(s.containers ?? []), ...(s.ephemeralContainers ?? [])]) {
    const annotation = `${POD_SECURITY.seccompContainerAnnotationPrefix}${String(c?.name)}`
    if (c?.securityContext?.seccompProfile == null && Object.hasOwn(annotations, annotation)) out.push(`${key(annotationsPath, annotation)}: ${SECCOMP_MESSAGE}`)
  }
  return out
}

/** The same warnings on create and on update, as most of the reference's strategies give. */
export const warnOnWrite = <T extends Obj>(warnings: (obj: T) => string[]) => ({
  warningsOnCreate: (obj: T): string[] => warnings(obj),
  warningsOnUpdate: (obj: T): string[] => warnings(obj)
})
