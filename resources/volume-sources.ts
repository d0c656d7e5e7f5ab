// Volume sources: the pod's (Volume) and the persistent volume's (PersistentVolumeSource), their
// schemas and defaults, with the protobuf messages of each.
import { Type, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox'
import { Int32, Int64, ObjectMeta, Quantity, StringMap } from './meta.js'
import { AtomicList, EMBEDDED_LOCAL_OBJECT_REFERENCE, LabelSelector, LocalObjectReference, MapList, ObjectReference, SecretReference } from './core-types.js'
import { PersistentVolumeClaimSpec } from './claim-spec.js'
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
  configMap: S({ name: opt(str()), items: opt(KeyToPathList()), defaultMode: modeField(), optional: opt(bool()) }, message('ConfigMapVolumeSource', { items: 2, defaultMode: keepZero(3), optional: keepZero(4) }, EMBEDDED_LOCAL_OBJECT_REFERENCE)),
  vsphereVolume,
  quobyte,
  azureDisk,
  photonPersistentDisk,
  projected: S({
    sources: opt(AtomicList(S({
      secret: opt(S({ name: opt(str()), items: opt(KeyToPathList()), optional: opt(bool()) }, message('SecretProjection', { items: 2, optional: keepZero(4) }, EMBEDDED_LOCAL_OBJECT_REFERENCE))),
      downwardAPI: opt(S({ items: opt(AtomicList(DownwardAPIVolumeFile)) }, message('DownwardAPIProjection', { items: 1 }))),
      configMap: opt(S({ name: opt(str()), items: opt(KeyToPathList()), optional: opt(bool()) }, message('ConfigMapProjection', { items: 2, optional: keepZero(4) }, EMBEDDED_LOCAL_OBJECT_REFERENCE))),
      serviceAccountToken: opt(S({ audience: opt(str()), expirationSeconds: opt(Int64({ default: 3600 })), path: str() }, message('ServiceAccountTokenProjection', { audience: 1, expirationSeconds: keepZero(2), path: 3 })))
    }, message('VolumeProjection', { secret: 1, downwardAPI: 2, configMap: 3, serviceAccountToken: 4 }, undefined, { clusterTrustBundle: wireOnly(5, ClusterTrustBundleProjection) })))),
    defaultMode: modeField()
  }, message('ProjectedVolumeSource', { sources: 1, defaultMode: keepZero(2) })),
  portworxVolume,
  scaleIO: scaleIO(LocalObjectReference, 'ScaleIOVolumeSource'),
  storageos: storageos(LocalObjectReference, 'StorageOSVolumeSource'),
  csi: S({ driver: str(), readOnly: opt(bool()), fsType: opt(str()), volumeAttributes: opt(StringMap()), nodePublishSecretRef: opt(LocalObjectReference) }, message('CSIVolumeSource', {
    driver: 1,
    readOnly: keepZero(2),
    fsType: keepZero(3),
    volumeAttributes: 4,
    nodePublishSecretRef: 5
  })),
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
  }, message('core.v1.CSIPersistentVolumeSource', {
    driver: 1,
    volumeHandle: 2,
    readOnly: 3,
    fsType: 4,
    volumeAttributes: 5,
    controllerPublishSecretRef: 6,
    nodeStageSecretRef: 7,
    nodePublishSecretRef: 8,
    controllerExpandSecretRef: 9,
    nodeExpandSecretRef: 10
  }))
}

const optional = <T extends Record<string, TSchema>>(sources: T) =>
  Object.fromEntries(Object.entries(sources).map(([k, v]) => [k, opt(v)])) as { [K in keyof T]: TOptional<T[K]> }

export const Volume = S({ name: str(), ...optional(VOLUME_SOURCES) }, message('Volume', { name: 1 }, { volumeSource: inlined(2, 'VolumeSource', {
  hostPath: 1,
  emptyDir: 2,
  gcePersistentDisk: 3,
  awsElasticBlockStore: 4,
  gitRepo: 5,
  secret: 6,
  nfs: 7,
  iscsi: 8,
  glusterfs: 9,
  persistentVolumeClaim: 10,
  rbd: 11,
  flexVolume: 12,
  cinder: 13,
  cephfs: 14,
  flocker: 15,
  downwardAPI: 16,
  fc: 17,
  azureFile: 18,
  configMap: 19,
  vsphereVolume: 20,
  quobyte: 21,
  azureDisk: 22,
  photonPersistentDisk: 23,
  portworxVolume: 24,
  scaleIO: 25,
  projected: 26,
  storageos: 27,
  csi: 28,
  ephemeral: 29,
  image: 30
}) }))
export const VolumeList = () => MapList(Volume, ['name'], { 'x-kubernetes-patch-strategy': 'merge,retainKeys' })
export const persistentVolumeSourceFields = () => optional(PERSISTENT_VOLUME_SOURCES)
