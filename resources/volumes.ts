// Volume sources: the pod's (Volume) and the persistent volume's (PersistentVolumeSource), their
// defaults, and the rules the reference server checks on them.
import { Type, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox'
import { Int32, Int64, ObjectMeta, Quantity, StringMap } from './meta.js'
import type { FieldError } from './define.js'
import { AtomicList, LabelSelector, LocalObjectReference, MapList, ObjectReference, SecretReference } from './core-types.js'
import { dnsLabelProblems, dnsSubdomainProblems, invalidEach, isDnsLabel, validateAnnotations, validateLabels } from './validation.js'
import { PersistentVolumeClaimSpec, validateClaimSpec } from './claim-spec.js'
import { isNegativeQuantity } from './quantity.js'
import { inlined, keepZero, message, wireOnly } from './protobuf.js'

const opt = Type.Optional
const S = (props: TProperties, extra: object = {}) => Type.Object(props, { additionalProperties: false, ...extra })
const str = () => Type.String()
const bool = () => Type.Boolean()

/** Octal 0644, the file mode of projected files unless a volume says otherwise. */
export const DEFAULT_FILE_MODE = 0o644

const KeyToPath = S({ key: str(), path: str(), mode: opt(Int32()) }, message('KeyToPath', { key: 1, path: 2, mode: keepZero(3) }))
const KeyToPathList = () => AtomicList(KeyToPath)
const ObjectFieldSelector = S({ apiVersion: opt(str()), fieldPath: str() }, { 'x-kubernetes-map-type': 'atomic', ...message('ObjectFieldSelector', { apiVersion: 1, fieldPath: 2 }) })
const ResourceFieldSelector = S({ containerName: opt(str()), resource: str(), divisor: opt(Quantity()) }, { 'x-kubernetes-map-type': 'atomic', ...message('ResourceFieldSelector', { containerName: 1, resource: 2, divisor: 3 }) })
const DownwardAPIVolumeFile = S({ path: str(), fieldRef: opt(ObjectFieldSelector), resourceFieldRef: opt(ResourceFieldSelector), mode: opt(Int32()) }, message('DownwardAPIVolumeFile', { path: 1, fieldRef: 2, resourceFieldRef: 3, mode: keepZero(4) }))

// Sources shared by pods and persistent volumes.
const hostPath = S({ path: str(), type: opt(Type.String({ default: '' })) }, message('core.v1.HostPathVolumeSource', { path: 1, type: keepZero(2) }))
const awsElasticBlockStore = S({ volumeID: str(), fsType: opt(str()), partition: opt(Int32()), readOnly: opt(bool()) }, message('core.v1.AWSElasticBlockStoreVolumeSource', { volumeID: 1, fsType: 2, partition: 3, readOnly: 4 }))
const gcePersistentDisk = S({ pdName: str(), fsType: opt(str()), partition: opt(Int32()), readOnly: opt(bool()) }, message('core.v1.GCEPersistentDiskVolumeSource', { pdName: 1, fsType: 2, partition: 3, readOnly: 4 }))
const nfs = S({ server: str(), path: str(), readOnly: opt(bool()) }, message('core.v1.NFSVolumeSource', { server: 1, path: 2, readOnly: 3 }))
const fc = S({ targetWWNs: opt(AtomicList(str())), lun: opt(Int32()), fsType: opt(str()), readOnly: opt(bool()), wwids: opt(AtomicList(str())) }, message('core.v1.FCVolumeSource', { targetWWNs: 1, lun: keepZero(2), fsType: 3, readOnly: 4, wwids: 5 }))
const flocker = S({ datasetName: opt(str()), datasetUUID: opt(str()) }, message('core.v1.FlockerVolumeSource', { datasetName: 1, datasetUUID: 2 }))
const azureDisk = S({
  diskName: str(),
  diskURI: str(),
  cachingMode: opt(Type.String({ default: 'ReadWrite' })),
  fsType: opt(Type.String({ default: 'ext4' })),
  readOnly: opt(Type.Boolean({ default: false })),
  kind: opt(Type.String({ default: 'Shared' }))
}, message('core.v1.AzureDiskVolumeSource', { diskName: 1, diskURI: 2, cachingMode: keepZero(3), fsType: keepZero(4), readOnly: keepZero(5), kind: keepZero(6) }))
const photonPersistentDisk = S({ pdID: str(), fsType: opt(str()) }, message('core.v1.PhotonPersistentDiskVolumeSource', { pdID: 1, fsType: 2 }))
const portworxVolume = S({ volumeID: str(), fsType: opt(str()), readOnly: opt(bool()) }, message('core.v1.PortworxVolumeSource', { volumeID: 1, fsType: 2, readOnly: 3 }))
const quobyte = S({ registry: str(), volume: str(), readOnly: opt(bool()), user: opt(str()), group: opt(str()), tenant: opt(str()) }, message('core.v1.QuobyteVolumeSource', { registry: 1, volume: 2, readOnly: 3, user: 4, group: 5, tenant: 6 }))
const vsphereVolume = S({ volumePath: str(), fsType: opt(str()), storagePolicyName: opt(str()), storagePolicyID: opt(str()) }, message('core.v1.VsphereVirtualDiskVolumeSource', { volumePath: 1, fsType: 2, storagePolicyName: 3, storagePolicyID: 4 }))

// Sources whose secret references differ between pods (local) and volumes (with namespace), each
// form a message of its own (`name`).
const cephfs = (ref: TSchema, name: string) => S({
  monitors: AtomicList(str()),
  path: opt(Type.String({ default: '/' })),
  user: opt(Type.String({ default: 'admin' })),
  secretFile: opt(str()),
  secretRef: opt(ref),
  readOnly: opt(bool())
}, message(name, { monitors: 1, path: 2, user: 3, secretFile: 4, secretRef: 5, readOnly: 6 }))
const cinder = (ref: TSchema, name: string) => S({ volumeID: str(), fsType: opt(str()), readOnly: opt(bool()), secretRef: opt(ref) }, message(name, { volumeID: 1, fsType: 2, readOnly: 3, secretRef: 4 }))
const flexVolume = (ref: TSchema, name: string) => S({ driver: str(), fsType: opt(str()), secretRef: opt(ref), readOnly: opt(bool()), options: opt(StringMap()) }, message(name, { driver: 1, fsType: 2, secretRef: 3, readOnly: 4, options: 5 }))
const iscsi = (ref: TSchema, name: string) => S({
  targetPortal: str(),
  iqn: str(),
  lun: Int32(),
  iscsiInterface: opt(Type.String({ default: 'default' })),
  fsType: opt(str()),
  readOnly: opt(bool()),
  portals: opt(AtomicList(str())),
  chapAuthDiscovery: opt(bool()),
  chapAuthSession: opt(bool()),
  secretRef: opt(ref),
  initiatorName: opt(str())
}, message(name, { targetPortal: 1, iqn: 2, lun: keepZero(3), iscsiInterface: 4, fsType: 5, readOnly: 6, portals: 7, chapAuthDiscovery: 8, secretRef: 10, chapAuthSession: 11, initiatorName: keepZero(12) }))
const rbd = (ref: TSchema, name: string) => S({
  monitors: AtomicList(str()),
  image: str(),
  fsType: opt(str()),
  pool: opt(Type.String({ default: 'rbd' })),
  user: opt(Type.String({ default: 'admin' })),
  keyring: opt(Type.String({ default: '/etc/ceph/keyring' })),
  secretRef: opt(ref),
  readOnly: opt(bool())
}, message(name, { monitors: 1, image: 2, fsType: 3, pool: 4, user: 5, keyring: 6, secretRef: 7, readOnly: 8 }))
const scaleIO = (ref: TSchema, name: string) => S({
  gateway: str(),
  system: str(),
  secretRef: ref,
  sslEnabled: opt(Type.Boolean({ default: false })),
  protectionDomain: opt(str()),
  storagePool: opt(str()),
  storageMode: opt(Type.String({ default: 'ThinProvisioned' })),
  volumeName: opt(str()),
  fsType: opt(Type.String({ default: 'xfs' })),
  readOnly: opt(bool())
}, message(name, { gateway: 1, system: 2, secretRef: 3, sslEnabled: 4, protectionDomain: 5, storagePool: 6, storageMode: 7, volumeName: 8, fsType: 9, readOnly: 10 }))
const storageos = (ref: TSchema, name: string) => S({ volumeName: opt(str()), volumeNamespace: opt(str()), fsType: opt(str()), readOnly: opt(bool()), secretRef: opt(ref) }, message(name, { volumeName: 1, volumeNamespace: 2, fsType: 3, readOnly: 4, secretRef: 5 }))
const glusterfs = (pv: boolean) => S({ endpoints: str(), path: str(), readOnly: opt(bool()), ...(pv ? { endpointsNamespace: opt(str()) } : {}) }, message(pv ? 'GlusterfsPersistentVolumeSource' : 'GlusterfsVolumeSource', { endpoints: 1, path: 2, readOnly: 3, ...(pv ? { endpointsNamespace: keepZero(4) } : {}) }))
const azureFile = (pv: boolean) => S({ secretName: str(), shareName: str(), readOnly: opt(bool()), ...(pv ? { secretNamespace: opt(str()) } : {}) }, message(pv ? 'AzureFilePersistentVolumeSource' : 'AzureFileVolumeSource', { secretName: 1, shareName: 2, readOnly: 3, ...(pv ? { secretNamespace: keepZero(4) } : {}) }))

/**
 * A claim template's metadata: on the wire the whole ObjectMeta, in the schema only what a
 * template may set (validation forbids the rest).
 */
const TemplateMetadata = S({ labels: opt(StringMap()), annotations: opt(StringMap()), name: opt(str()), namespace: opt(str()), generateName: opt(str()) }, message('meta.v1.ObjectMeta', { name: 1, generateName: 2, namespace: 3, labels: 11, annotations: 12 }, undefined, {
  selfLink: wireOnly(4, ObjectMeta.properties.selfLink),
  uid: wireOnly(5, ObjectMeta.properties.uid),
  resourceVersion: wireOnly(6, ObjectMeta.properties.resourceVersion),
  generation: wireOnly(7, ObjectMeta.properties.generation),
  creationTimestamp: wireOnly(8, ObjectMeta.properties.creationTimestamp),
  deletionTimestamp: wireOnly(9, ObjectMeta.properties.deletionTimestamp),
  deletionGracePeriodSeconds: wireOnly(keepZero(10), ObjectMeta.properties.deletionGracePeriodSeconds),
  ownerReferences: wireOnly(13, ObjectMeta.properties.ownerReferences),
  finalizers: wireOnly(14, ObjectMeta.properties.finalizers),
  managedFields: wireOnly(17, ObjectMeta.properties.managedFields)
}))

/** The projection the reference has beside these; the schema does not take it yet (wire-only). */
const ClusterTrustBundleProjection = S({
  name: opt(str()),
  signerName: opt(str()),
  labelSelector: opt(LabelSelector),
  path: str(),
  optional: opt(bool())
}, message('ClusterTrustBundleProjection', { name: keepZero(1), signerName: keepZero(2), labelSelector: 3, path: 4, optional: keepZero(5) }))

const modeField = () => opt(Int32({ default: DEFAULT_FILE_MODE }))

/** What a pod volume may mount: exactly one of these per volume. */
export const VOLUME_SOURCES = {
  hostPath,
  emptyDir: S({ medium: opt(str()), sizeLimit: opt(Quantity()) }, message('EmptyDirVolumeSource', { medium: 1, sizeLimit: 2 })),
  gcePersistentDisk,
  awsElasticBlockStore,
  gitRepo: S({ repository: str(), revision: opt(str()), directory: opt(str()) }, message('GitRepoVolumeSource', { repository: 1, revision: 2, directory: 3 })),
  secret: S({ secretName: opt(str()), items: opt(KeyToPathList()), defaultMode: modeField(), optional: opt(bool()) }, message('SecretVolumeSource', { secretName: 1, items: 2, defaultMode: keepZero(3), optional: keepZero(4) })),
  nfs,
  iscsi: iscsi(LocalObjectReference, 'ISCSIVolumeSource'),
  glusterfs: glusterfs(false),
  persistentVolumeClaim: S({ claimName: str(), readOnly: opt(bool()) }, message('PersistentVolumeClaimVolumeSource', { claimName: 1, readOnly: 2 })),
  rbd: rbd(LocalObjectReference, 'RBDVolumeSource'),
  flexVolume: flexVolume(LocalObjectReference, 'FlexVolumeSource'),
  cinder: cinder(LocalObjectReference, 'CinderVolumeSource'),
  cephfs: cephfs(LocalObjectReference, 'CephFSVolumeSource'),
  flocker,
  downwardAPI: S({ items: opt(AtomicList(DownwardAPIVolumeFile)), defaultMode: modeField() }, message('DownwardAPIVolumeSource', { items: 1, defaultMode: keepZero(2) })),
  fc,
  azureFile: azureFile(false),
  configMap: S({ name: opt(str()), items: opt(KeyToPathList()), defaultMode: modeField(), optional: opt(bool()) }, message('ConfigMapVolumeSource', { items: 2, defaultMode: keepZero(3), optional: keepZero(4) }, { localObjectReference: inlined(1, 'LocalObjectReference', { name: 1 }) })),
  vsphereVolume,
  quobyte,
  azureDisk,
  photonPersistentDisk,
  projected: S({
    sources: opt(AtomicList(S({
      secret: opt(S({ name: opt(str()), items: opt(KeyToPathList()), optional: opt(bool()) }, message('SecretProjection', { items: 2, optional: keepZero(4) }, { localObjectReference: inlined(1, 'LocalObjectReference', { name: 1 }) }))),
      downwardAPI: opt(S({ items: opt(AtomicList(DownwardAPIVolumeFile)) }, message('DownwardAPIProjection', { items: 1 }))),
      configMap: opt(S({ name: opt(str()), items: opt(KeyToPathList()), optional: opt(bool()) }, message('ConfigMapProjection', { items: 2, optional: keepZero(4) }, { localObjectReference: inlined(1, 'LocalObjectReference', { name: 1 }) }))),
      serviceAccountToken: opt(S({ audience: opt(str()), expirationSeconds: opt(Int64({ default: 3600 })), path: str() }, message('ServiceAccountTokenProjection', { audience: 1, expirationSeconds: keepZero(2), path: 3 })))
    }, message('VolumeProjection', { secret: 1, downwardAPI: 2, configMap: 3, serviceAccountToken: 4 }, undefined, { clusterTrustBundle: wireOnly(5, ClusterTrustBundleProjection) })))),
    defaultMode: modeField()
  }, message('ProjectedVolumeSource', { sources: 1, defaultMode: keepZero(2) })),
  portworxVolume,
  scaleIO: scaleIO(LocalObjectReference, 'ScaleIOVolumeSource'),
  storageos: storageos(LocalObjectReference, 'StorageOSVolumeSource'),
  csi: S({ driver: str(), readOnly: opt(bool()), fsType: opt(str()), volumeAttributes: opt(StringMap()), nodePublishSecretRef: opt(LocalObjectReference) }, message('CSIVolumeSource', { driver: 1, readOnly: keepZero(2), fsType: keepZero(3), volumeAttributes: 4, nodePublishSecretRef: 5 })),
  ephemeral: S({
    volumeClaimTemplate: opt(S({
      metadata: opt(TemplateMetadata),
      spec: PersistentVolumeClaimSpec
    }, message('PersistentVolumeClaimTemplate', { metadata: 1, spec: 2 })))
  }, message('EphemeralVolumeSource', { volumeClaimTemplate: 1 })),
  image: S({ reference: opt(str()), pullPolicy: opt(str()) }, message('ImageVolumeSource', { reference: 1, pullPolicy: 2 }))
}

/** What a persistent volume may be backed by: exactly one per volume. */
export const PERSISTENT_VOLUME_SOURCES = {
  gcePersistentDisk,
  awsElasticBlockStore,
  hostPath,
  glusterfs: glusterfs(true),
  nfs,
  rbd: rbd(SecretReference, 'RBDPersistentVolumeSource'),
  iscsi: iscsi(SecretReference, 'ISCSIPersistentVolumeSource'),
  cinder: cinder(SecretReference, 'CinderPersistentVolumeSource'),
  cephfs: cephfs(SecretReference, 'CephFSPersistentVolumeSource'),
  fc,
  flocker,
  flexVolume: flexVolume(SecretReference, 'FlexPersistentVolumeSource'),
  azureFile: azureFile(true),
  vsphereVolume,
  quobyte,
  azureDisk,
  photonPersistentDisk,
  portworxVolume,
  scaleIO: scaleIO(SecretReference, 'ScaleIOPersistentVolumeSource'),
  local: S({ path: str(), fsType: opt(str()) }, message('core.v1.LocalVolumeSource', { path: 1, fsType: keepZero(2) })),
  storageos: storageos(ObjectReference, 'StorageOSPersistentVolumeSource'),
  csi: S({
    driver: str(),
    volumeHandle: str(),
    readOnly: opt(bool()),
    fsType: opt(str()),
    volumeAttributes: opt(StringMap()),
    controllerPublishSecretRef: opt(SecretReference),
    nodeStageSecretRef: opt(SecretReference),
    nodePublishSecretRef: opt(SecretReference),
    controllerExpandSecretRef: opt(SecretReference),
    nodeExpandSecretRef: opt(SecretReference)
  }, message('core.v1.CSIPersistentVolumeSource', { driver: 1, volumeHandle: 2, readOnly: 3, fsType: 4, volumeAttributes: 5, controllerPublishSecretRef: 6, nodeStageSecretRef: 7, nodePublishSecretRef: 8, controllerExpandSecretRef: 9, nodeExpandSecretRef: 10 }))
}

const optional = <T extends Record<string, TSchema>>(sources: T) =>
  Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, opt(v)])) as { [K in keyof T]: TOptional<T[K]> }

export const Volume = S({ name: str(), ...optional(VOLUME_SOURCES) }, message('Volume', { name: 1 }, { volumeSource: inlined(2, 'VolumeSource', { hostPath: 1, emptyDir: 2, gcePersistentDisk: 3, awsElasticBlockStore: 4, gitRepo: 5, secret: 6, nfs: 7, iscsi: 8, glusterfs: 9, persistentVolumeClaim: 10, rbd: 11, flexVolume: 12, cinder: 13, cephfs: 14, flocker: 15, downwardAPI: 16, fc: 17, azureFile: 18, configMap: 19, vsphereVolume: 20, quobyte: 21, azureDisk: 22, photonPersistentDisk: 23, portworxVolume: 24, scaleIO: 25, projected: 26, storageos: 27, csi: 28, ephemeral: 29, image: 30 }) }))
export const VolumeList = () => MapList(Volume, ['name'], { 'x-kubernetes-patch-strategy': 'merge,retainKeys' })
export const persistentVolumeSourceFields = () => optional(PERSISTENT_VOLUME_SOURCES)

// ---- validation -------------------------------------------------------------------------------

type Obj = Record<string, any>

/** A persistent volume's secret reference: a name and the namespace it lives in. */
function validateSecretReference (ref: Obj, field: string): FieldError[] {
  const out = required(ref, field, 'name', 'namespace')
  if (present(ref.name)) out.push(...invalidEach(`${field}.name`, ref.name, dnsSubdomainProblems(ref.name)))
  if (present(ref.namespace)) out.push(...invalidEach(`${field}.namespace`, ref.namespace, dnsLabelProblems(ref.namespace)))
  return out
}

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0)

function required (src: Obj, field: string, ...names: string[]): FieldError[] {
  return names.filter(n => !present(src[n])).map(n => ({ type: 'Required' as const, field: `${field}.${n}` }))
}

const MODE_DETAIL = 'must be a number between 0 and 0777 (octal), both inclusive'
function validateMode (mode: unknown, field: string): FieldError[] {
  if (mode === undefined || mode === null) return []
  return typeof mode === 'number' && mode >= 0 && mode <= 0o777 ? [] : [{ type: 'Invalid', field, value: mode, detail: MODE_DETAIL }]
}

/** A path inside the volume: relative, and never stepping out of it. */
function validateLocalDescendingPath (path: string, field: string): FieldError[] {
  const out: FieldError[] = []
  if (path.startsWith('/')) out.push({ type: 'Invalid', field, value: path, detail: 'must be a relative path' })
  out.push(...validateNoBacksteps(path, field))
  return out
}

function validateNoBacksteps (path: string, field: string): FieldError[] {
  return path.split(/[\\/]/).includes('..') ? [{ type: 'Invalid', field, value: path, detail: "must not contain '..'" }] : []
}

function validateKeyToPaths (items: Obj[] | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  ;(items ?? []).forEach((item, i) => {
    const f = `${field}[${i}]`
    if (!present(item.key)) out.push({ type: 'Required', field: `${f}.key` })
    if (!present(item.path)) out.push({ type: 'Required', field: `${f}.path` })
    else {
      out.push(...validateLocalDescendingPath(item.path, `${f}.path`))
      const first = String(item.path).split('/')[0]!
      if (first.startsWith('..') && first !== '..') out.push({ type: 'Invalid', field: `${f}.path`, value: item.path, detail: "must not start with '..'" })
    }
    out.push(...validateMode(item.mode, `${f}.mode`))
  })
  return out
}

const DOWNWARD_FIELDS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid']
const DOWNWARD_RESOURCES = ['limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage']

function validateDownwardFiles (items: Obj[] | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  ;(items ?? []).forEach((item, i) => {
    const f = `${field}[${i}]`
    if (!present(item.path)) out.push({ type: 'Required', field: `${f}.path` })
    else {
      out.push(...validateLocalDescendingPath(item.path, `${f}.path`))
      if (String(item.path).split('/')[0]!.startsWith('..')) out.push({ type: 'Invalid', field: `${f}.path`, value: item.path, detail: "must not start with '..'" })
    }
    out.push(...validateMode(item.mode, `${f}.mode`))
    if (item.fieldRef !== undefined && item.resourceFieldRef !== undefined) {
      out.push({ type: 'Invalid', field: f, value: 'resource', detail: 'fieldRef and resourceFieldRef can not be specified simultaneously' })
    } else if (item.fieldRef !== undefined) {
      const path = String(item.fieldRef.fieldPath ?? '')
      const subscripted = /^metadata\.(annotations|labels)\['[^']+'\]$/.test(path)
      if (!present(path)) out.push({ type: 'Required', field: `${f}.fieldRef.fieldPath` })
      else if (!DOWNWARD_FIELDS.includes(path) && !subscripted) out.push({ type: 'NotSupported', field: `${f}.fieldRef.fieldPath`, value: path, supported: DOWNWARD_FIELDS })
    } else if (item.resourceFieldRef !== undefined) {
      if (!present(item.resourceFieldRef.containerName)) out.push({ type: 'Required', field: `${f}.resourceFieldRef.containerName` })
      if (!DOWNWARD_RESOURCES.includes(item.resourceFieldRef.resource)) out.push({ type: 'NotSupported', field: `${f}.resourceFieldRef.resource`, value: item.resourceFieldRef.resource, supported: DOWNWARD_RESOURCES })
    } else {
      out.push({ type: 'Required', field: f, detail: 'one of fieldRef and resourceFieldRef is required' })
    }
  })
  return out
}

const HOST_PATH_TYPES = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice']
const AZURE_CACHING = ['None', 'ReadOnly', 'ReadWrite']
const AZURE_KINDS = ['Shared', 'Dedicated', 'Managed']
const SCALEIO_MODES = ['ThickProvisioned', 'ThinProvisioned']
const EMPTYDIR_MEDIA = ['', 'Memory', 'HugePages']
const IQN = /^iqn\.\d{4}-\d{2}\.[^ _]+$/
const EUI = /^eui\.[0-9A-Fa-f]{16}$/
const NAA = /^naa\.([0-9A-Fa-f]{16}|[0-9A-Fa-f]{32})$/
/** A CSI driver name: at most 63 characters, letters and digits with '-' and '.' inside. */
export function csiDriverNameProblems (name: string): Array<{ type: 'Invalid' | 'TooLong', detail: string }> {
  const out: Array<{ type: 'Invalid' | 'TooLong', detail: string }> = []
  if (name.length > 63) out.push({ type: 'TooLong', detail: 'may not be more than 63 bytes' })
  for (const p of dnsSubdomainProblems(name.toLowerCase())) if (!p.startsWith('must be no more than')) out.push({ type: 'Invalid', detail: p })
  return out
}

function validateIscsi (s: Obj, f: string): FieldError[] {
  const out = required(s, f, 'targetPortal', 'iqn')
  if (present(s.iqn) && !(IQN.test(s.iqn) || EUI.test(s.iqn) || NAA.test(s.iqn))) {
    out.push({ type: 'Invalid', field: `${f}.iqn`, value: s.iqn, detail: 'must be valid format starting with iqn, eui, or naa' })
  }
  if (typeof s.lun === 'number' && (s.lun < 0 || s.lun > 255)) out.push({ type: 'Invalid', field: `${f}.lun`, value: s.lun, detail: 'must be between 0 and 255, inclusive' })
  if ((s.chapAuthDiscovery === true || s.chapAuthSession === true) && !present(s.secretRef?.name)) {
    out.push({ type: 'Required', field: `${f}.secretRef`, detail: 'must be specified when chapAuthDiscovery or chapAuthSession are set' })
  }
  ;(s.portals ?? []).forEach((p: string, i: number) => { if (!present(p)) out.push({ type: 'Required', field: `${f}.portals[${i}]` }) })
  return out
}

/** Rules per source, shared by pods and persistent volumes unless `pv` says otherwise. */
const SOURCE_RULES: Record<string, (s: Obj, f: string, pv: boolean) => FieldError[]> = {
  hostPath (s, f) {
    const out = required(s, f, 'path')
    if (present(s.path)) out.push(...validateNoBacksteps(s.path, `${f}.path`))
    if (s.type !== undefined && !HOST_PATH_TYPES.includes(s.type)) out.push({ type: 'NotSupported', field: `${f}.type`, value: s.type, supported: HOST_PATH_TYPES })
    return out
  },
  emptyDir (s, f) {
    const out: FieldError[] = []
    if (s.medium !== undefined && !EMPTYDIR_MEDIA.includes(s.medium) && !String(s.medium).startsWith('HugePages-')) out.push({ type: 'NotSupported', field: `${f}.medium`, value: s.medium, supported: EMPTYDIR_MEDIA })
    if (typeof s.sizeLimit === 'string' && isNegativeQuantity(s.sizeLimit)) out.push({ type: 'Forbidden', field: `${f}.sizeLimit`, detail: 'SizeLimit field must be a valid resource quantity' })
    return out
  },
  gitRepo (s, f) {
    const out = required(s, f, 'repository')
    if (present(s.directory)) out.push(...validateLocalDescendingPath(s.directory, `${f}.directory`))
    return out
  },
  gcePersistentDisk: (s, f) => required(s, f, 'pdName'),
  awsElasticBlockStore: (s, f) => required(s, f, 'volumeID'),
  secret (s, f) {
    return [...required(s, f, 'secretName'), ...validateMode(s.defaultMode, `${f}.defaultMode`), ...validateKeyToPaths(s.items, `${f}.items`)]
  },
  configMap (s, f) {
    return [...required(s, f, 'name'), ...validateMode(s.defaultMode, `${f}.defaultMode`), ...validateKeyToPaths(s.items, `${f}.items`)]
  },
  downwardAPI: (s, f) => [...validateMode(s.defaultMode, `${f}.defaultMode`), ...validateDownwardFiles(s.items, `${f}.items`)],
  nfs (s, f) {
    const out = required(s, f, 'server', 'path')
    if (present(s.path) && !String(s.path).startsWith('/')) out.push({ type: 'Invalid', field: `${f}.path`, value: s.path, detail: 'must be an absolute path' })
    return out
  },
  iscsi: validateIscsi,
  glusterfs (s, f, pv) {
    const out = required(s, f, 'endpoints', 'path')
    if (pv && present(s.endpointsNamespace)) out.push(...invalidEach(`${f}.endpointsNamespace`, s.endpointsNamespace, dnsLabelProblems(s.endpointsNamespace)))
    return out
  },
  persistentVolumeClaim: (s, f) => required(s, f, 'claimName'),
  rbd: (s, f) => required(s, f, 'monitors', 'image'),
  flexVolume: (s, f) => required(s, f, 'driver'),
  cinder (s, f, pv) {
    const out = required(s, f, 'volumeID')
    if (pv && s.secretRef !== undefined) out.push(...validateSecretReference(s.secretRef, `${f}.secretRef`))
    return out
  },
  cephfs (s, f, pv) {
    const out = required(s, f, 'monitors')
    if (pv && s.secretRef !== undefined) out.push(...validateSecretReference(s.secretRef, `${f}.secretRef`))
    return out
  },
  flocker (s, f) {
    const name = present(s.datasetName)
    const uuid = present(s.datasetUUID)
    if (!name && !uuid) return [{ type: 'Required', field: f, detail: 'one of datasetName and datasetUUID is required' }]
    if (name && uuid) return [{ type: 'Invalid', field: f, value: 'resource', detail: 'datasetName and datasetUUID can not be specified simultaneously' }]
    if (name && String(s.datasetName).includes('/')) return [{ type: 'Invalid', field: `${f}.datasetName`, value: s.datasetName, detail: "must not contain '/'" }]
    return []
  },
  fc (s, f) {
    const wwns = (s.targetWWNs ?? []).length > 0
    const wwids = (s.wwids ?? []).length > 0
    const out: FieldError[] = []
    if (!wwns && !wwids) out.push({ type: 'Required', field: `${f}.targetWWNs`, detail: 'must specify either targetWWNs or wwids, but not both' })
    if (wwns && wwids) out.push({ type: 'Invalid', field: `${f}.targetWWNs`, value: s.targetWWNs, detail: 'targetWWNs and wwids can not be specified simultaneously' })
    if (wwns) {
      if (s.lun === undefined || s.lun === null) out.push({ type: 'Required', field: `${f}.lun`, detail: 'lun is required if targetWWNs is specified' })
      else if (s.lun < 0 || s.lun > 255) out.push({ type: 'Invalid', field: `${f}.lun`, value: s.lun, detail: 'must be between 0 and 255, inclusive' })
    }
    return out
  },
  azureFile (s, f, pv) {
    const out = required(s, f, 'secretName', 'shareName')
    if (pv && present(s.secretNamespace)) out.push(...invalidEach(`${f}.secretNamespace`, s.secretNamespace, dnsLabelProblems(s.secretNamespace)))
    return out
  },
  vsphereVolume: (s, f) => required(s, f, 'volumePath'),
  quobyte: (s, f) => required(s, f, 'registry', 'volume'),
  azureDisk (s, f) {
    const out = required(s, f, 'diskName', 'diskURI')
    if (s.cachingMode !== undefined && !AZURE_CACHING.includes(s.cachingMode)) out.push({ type: 'NotSupported', field: `${f}.cachingMode`, value: s.cachingMode, supported: AZURE_CACHING })
    if (s.kind !== undefined && !AZURE_KINDS.includes(s.kind)) out.push({ type: 'NotSupported', field: `${f}.kind`, value: s.kind, supported: AZURE_KINDS })
    if (present(s.diskURI) && s.kind === 'Managed' && !String(s.diskURI).startsWith('/subscriptions/')) {
      out.push({ type: 'NotSupported', field: `${f}.diskURI`, value: s.diskURI, supported: ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}'] })
    }
    if (present(s.diskURI) && s.kind !== undefined && s.kind !== 'Managed' && !String(s.diskURI).startsWith('https://')) {
      out.push({ type: 'NotSupported', field: `${f}.diskURI`, value: s.diskURI, supported: ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd'] })
    }
    return out
  },
  photonPersistentDisk: (s, f) => required(s, f, 'pdID'),
  projected (s, f) {
    const out = validateMode(s.defaultMode, `${f}.defaultMode`)
    // Every projected file has a path of its own across all sources.
    const paths = new Set<string>()
    const claimPaths = (items: Obj[] | undefined, owner: unknown): void => {
      for (const item of items ?? []) {
        if (!present(item.path)) continue
        if (paths.has(item.path)) out.push({ type: 'Invalid', field: f, value: owner, detail: 'conflicting duplicate paths' })
        paths.add(item.path)
      }
    }
    ;(s.sources ?? []).forEach((src: Obj, i: number) => {
      const p = `${f}.sources[${i}]`
      const kinds = ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle'].filter(k => src[k] !== undefined && src[k] !== null)
      if (kinds.length > 1) out.push({ type: 'Forbidden', field: p, detail: 'may not specify more than 1 volume type per source' })
      claimPaths(src.secret?.items, src.secret?.name)
      claimPaths(src.configMap?.items, src.configMap?.name)
      claimPaths(src.downwardAPI?.items, '')
      if (src.serviceAccountToken !== undefined) claimPaths([src.serviceAccountToken], '')
      if (src.secret !== undefined) out.push(...required(src.secret, `${p}.secret`, 'name'), ...validateKeyToPaths(src.secret.items, `${p}.secret.items`))
      if (src.configMap !== undefined) out.push(...required(src.configMap, `${p}.configMap`, 'name'), ...validateKeyToPaths(src.configMap.items, `${p}.configMap.items`))
      if (src.downwardAPI !== undefined) out.push(...validateDownwardFiles(src.downwardAPI.items, `${p}.downwardAPI.items`))
      const token = src.serviceAccountToken
      if (token !== undefined) {
        const t = `${p}.serviceAccountToken`
        if (typeof token.expirationSeconds === 'number') {
          if (token.expirationSeconds < 600) out.push({ type: 'Invalid', field: `${t}.expirationSeconds`, value: token.expirationSeconds, detail: 'may not specify a duration less than 10 minutes' })
          else if (token.expirationSeconds > 2 ** 32) out.push({ type: 'Invalid', field: `${t}.expirationSeconds`, value: token.expirationSeconds, detail: 'may not specify a duration larger than 2^32 seconds' })
        }
        if (!present(token.path)) out.push({ type: 'Required', field: `${t}.path` })
        else out.push(...validateLocalDescendingPath(token.path, `${t}.path`))
      }
    })
    return out
  },
  portworxVolume: (s, f) => required(s, f, 'volumeID'),
  scaleIO (s, f) {
    const out = required(s, f, 'gateway', 'system')
    if (!present(s.secretRef?.name)) out.push({ type: 'Required', field: `${f}.secretRef` })
    if (s.storageMode !== undefined && !SCALEIO_MODES.includes(s.storageMode)) out.push({ type: 'NotSupported', field: `${f}.storageMode`, value: s.storageMode, supported: SCALEIO_MODES })
    return out
  },
  storageos (s, f, pv) {
    const out: FieldError[] = pv ? [] : required(s, f, 'volumeName')
    if (present(s.volumeName)) out.push(...invalidEach(`${f}.volumeName`, s.volumeName, dnsLabelProblems(s.volumeName)))
    if (present(s.volumeNamespace)) out.push(...invalidEach(`${f}.volumeNamespace`, s.volumeNamespace, dnsLabelProblems(s.volumeNamespace)))
    return out
  },
  csi (s, f, pv) {
    const out = required(s, f, 'driver', ...(pv ? ['volumeHandle'] : []))
    if (present(s.driver)) for (const p of csiDriverNameProblems(s.driver)) out.push({ ...p, field: `${f}.driver`, value: s.driver })
    if (pv) {
      for (const ref of ['controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef']) {
        if (s[ref] !== undefined) out.push(...validateSecretReference(s[ref], `${f}.${ref}`))
      }
    }
    return out
  },
  local (s, f) {
    const out = required(s, f, 'path')
    if (present(s.path)) out.push(...validateNoBacksteps(s.path, `${f}.path`))
    return out
  },
  ephemeral (s, f) {
    const tpl = s.volumeClaimTemplate
    if (tpl === undefined || tpl === null) return [{ type: 'Required', field: `${f}.volumeClaimTemplate` }]
    const out: FieldError[] = []
    const t = `${f}.volumeClaimTemplate`
    for (const forbidden of ['name', 'namespace', 'generateName']) {
      if (present(tpl.metadata?.[forbidden])) out.push({ type: 'Forbidden', field: `${t}.metadata.${forbidden}`, detail: 'field must not be set' })
    }
    out.push(...validateLabels(tpl.metadata?.labels, `${t}.metadata.labels`), ...validateAnnotations(tpl.metadata?.annotations, `${t}.metadata.annotations`))
    if (tpl.spec === undefined) out.push({ type: 'Required', field: `${t}.spec` })
    else out.push(...validateClaimSpec(tpl.spec, `${t}.spec`))
    return out
  },
  image: (s, f) => required(s, f, 'reference')
}

/** Exactly one source among `names`; the rules of the one present. */
function validateSource (v: Obj, f: string, names: string[], pv: boolean, typeField: string): FieldError[] {
  const set = names.filter(n => v[n] !== undefined && v[n] !== null)
  if (set.length === 0) return [{ type: 'Required', field: f, detail: 'must specify a volume type' }]
  const out: FieldError[] = set.slice(1).map(n => ({ type: 'Forbidden' as const, field: `${typeField}${n}`, detail: 'may not specify more than 1 volume type' }))
  out.push(...(SOURCE_RULES[set[0]!]?.(v[set[0]!], `${typeField}${set[0]}`, pv) ?? []))
  return out
}

/** Pod volumes: unique DNS-label names, one source each. Returns the errors and the names. */
export function validateVolumes (volumes: Obj[] | undefined, field: string): { errors: FieldError[], names: Set<string> } {
  const errors: FieldError[] = []
  const names = new Set<string>()
  ;(volumes ?? []).forEach((v, i) => {
    const f = `${field}[${i}]`
    if (!present(v.name)) errors.push({ type: 'Required', field: `${f}.name` })
    else {
      errors.push(...invalidEach(`${f}.name`, v.name, dnsLabelProblems(v.name)))
      if (names.has(v.name)) errors.push({ type: 'Duplicate', field: `${f}.name`, value: v.name })
      if (isDnsLabel(v.name)) names.add(v.name)
    }
    errors.push(...validateSource(v, f, Object.keys(VOLUME_SOURCES), false, `${f}.`))
  })
  return { errors, names }
}

/** Pod volume sources that have no persistent-volume counterpart. */
export const POD_ONLY_SOURCES = ['emptyDir', 'configMap', 'secret', 'downwardAPI', 'projected', 'ephemeral', 'gitRepo']

/** The source of a persistent volume spec: exactly one, and none of the pod-only ones. */
export function validatePersistentVolumeSource (spec: Obj, field: string): FieldError[] {
  const out: FieldError[] = POD_ONLY_SOURCES.filter(n => spec[n] !== undefined && spec[n] !== null)
    .map(n => ({ type: 'Forbidden' as const, field: `${field}.${n}`, detail: 'may not be specified on a persistent volume' }))
  return [...out, ...validateSource(spec, field, Object.keys(PERSISTENT_VOLUME_SOURCES), true, `${field}.`)]
}
