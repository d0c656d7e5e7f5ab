// The rules the reference server checks on volume sources (schemas in volume-sources.ts): the
// pod's volumes and the persistent volume's source.
import type { FieldError } from './define.js'
import { dnsLabelProblems, dnsSubdomainProblems, invalidEach, isDnsLabel, validateAnnotations, validateLabels } from './validation.js'
import { validateClaimSpec } from './claim-spec.js'
import { isNegativeQuantity } from './quantity.js'
import { PERSISTENT_VOLUME_SOURCES, VOLUME_SOURCES } from './volume-sources.js'

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
