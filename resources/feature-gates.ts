// The feature gates this server has (--feature-gates), each with its stage in the reference
// server 1.33 and what it switches here. Only gates with real behaviour in this server are
// listed: a gate either changes what the server does, or is GA or deprecated and locked to the
// one behaviour the server has. The spec's lifecycle: alpha (off by default), beta (on by
// default, may be turned off), GA (on, locked; setting it warns that it will go), removed
// (refused at start).

export type GateStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED'

export interface FeatureGateSpec {
  stage: GateStage
  default: boolean
  /** The default cannot be changed (GA gates, and deprecated ones whose old behaviour is gone). */
  lockToDefault?: boolean
  /** The release the gate reached its stage in. */
  since: string
  /** What it switches in this server. */
  behaviour: string
}

export const FEATURE_GATES = {
  ConsistentListFromCache: {
    stage: 'BETA', default: true, since: '1.31',
    behaviour: 'a list without resourceVersion is served from the watch cache once it caught up with the database; off, it is read from the database'
  },
  CoordinatedLeaderElection: {
    stage: 'BETA', default: false, since: '1.33',
    behaviour: 'Lease spec.strategy and spec.preferredHolder are kept; off, new Leases lose them'
  },
  DeploymentReplicaSetTerminatingReplicas: {
    stage: 'ALPHA', default: false, since: '1.33',
    behaviour: 'Deployment and ReplicaSet status.terminatingReplicas is kept; off, a status write drops it unless the stored status has it'
  },
  HPAConfigurableTolerance: {
    stage: 'ALPHA', default: false, since: '1.33',
    behaviour: 'HorizontalPodAutoscaler behavior.scaleUp/scaleDown.tolerance is kept; off, a new one is dropped'
  },
  HPAScaleToZero: {
    stage: 'ALPHA', default: false, since: '1.16',
    behaviour: 'HorizontalPodAutoscaler spec.minReplicas may be 0 (with an Object or External metric); off, only an autoscaler already at 0 keeps it'
  },
  MaxUnavailableStatefulSet: {
    stage: 'ALPHA', default: false, since: '1.24',
    behaviour: 'StatefulSet updateStrategy.rollingUpdate.maxUnavailable is kept; off, a new one is dropped'
  },
  MutatingAdmissionPolicy: {
    stage: 'ALPHA', default: false, since: '1.32',
    behaviour: 'MutatingAdmissionPolicy and its binding (admissionregistration v1alpha1, with --runtime-config) are served and the MutatingAdmissionPolicy admission plugin applies them; off, neither'
  },
  RetryGenerateName: {
    stage: 'GA', default: true, lockToDefault: true, since: '1.32',
    behaviour: 'a create with generateName retries another name when the generated one is taken'
  },
  ServiceAccountTokenJTI: {
    stage: 'GA', default: true, lockToDefault: true, since: '1.32',
    behaviour: 'issued service account tokens carry a jti claim, recorded in the user\'s extra'
  },
  ServiceAccountTokenNodeBinding: {
    stage: 'GA', default: true, lockToDefault: true, since: '1.33',
    behaviour: 'TokenRequest may bind a token to a Node'
  },
  ServiceAccountTokenPodNodeInfo: {
    stage: 'GA', default: true, lockToDefault: true, since: '1.32',
    behaviour: 'tokens bound to a Pod carry the name and uid of the Pod\'s Node'
  },
  StorageVersionHash: {
    stage: 'BETA', default: true, since: '1.15',
    behaviour: 'discovery lists each stored resource\'s storageVersionHash'
  },
  WatchFromStorageWithoutResourceVersion: {
    stage: 'DEPRECATED', default: false, lockToDefault: true, since: '1.33',
    behaviour: 'a watch without resourceVersion is always served from the watch cache'
  },
  WatchList: {
    stage: 'BETA', default: true, since: '1.32',
    behaviour: 'watches take sendInitialEvents (streaming lists); off, the parameter is refused'
  }
} as const satisfies Record<string, FeatureGateSpec>

export type FeatureName = keyof typeof FEATURE_GATES

/** Gates the reference server has removed after GA: naming one is refused, as upstream does. */
export const REMOVED_GATES: Readonly<Record<string, string>> = {
  APIListChunking: 'GA in v1.29',
  RemainingItemCount: 'GA in v1.29',
  ServerSideApply: 'GA in v1.22',
  ServerSideFieldValidation: 'GA in v1.27',
  WatchBookmark: 'GA in v1.17'
}

/** The special gates that set every alpha or beta gate at once. */
const ALL_ALPHA = 'AllAlpha'
const ALL_BETA = 'AllBeta'

export interface FeatureGates {
  enabled (name: FeatureName): boolean
  /** What setting the gates said to warn about (GA and deprecated gates), for the server log. */
  readonly warnings: readonly string[]
  /** `Name=true,Other=false`, every known gate, sorted. */
  toString (): string
}

/** `Name=true,Other=false` (the flag may repeat) into a map; malformed pairs throw. */
export function parseFeatureGateFlag (values: readonly string[]): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  for (const value of values) {
    for (const raw of value.split(',')) {
      const pair = raw.trim()
      if (pair === '') continue
      const eq = pair.indexOf('=')
      if (eq === -1) throw new Error(`missing bool value for ${pair}`)
      const name = pair.slice(0, eq).trim()
      const text = pair.slice(eq + 1).trim()
      const bool = parseBool(text)
      if (bool === undefined) throw new Error(`invalid value of ${name}=${text}, err: strconv.ParseBool: parsing "${text}": invalid syntax`)
      out[name] = bool
    }
  }
  return out
}

/** Go's strconv.ParseBool, which the reference flag uses. */
function parseBool (text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false
  return undefined
}

/** The gates as set; unknown, removed and locked gates throw with the reference server's words. */
export function featureGates (set: Readonly<Record<string, boolean>> = {}): FeatureGates {
  const enabled = new Map<FeatureName, boolean>()
  for (const [name, spec] of Object.entries(FEATURE_GATES) as Array<[FeatureName, FeatureGateSpec]>) enabled.set(name, spec.default)
  const warnings: string[] = []
  const byStage = (stage: GateStage, value: boolean): void => {
    for (const [name, spec] of Object.entries(FEATURE_GATES) as Array<[FeatureName, FeatureGateSpec]>) {
      // An explicit setting of the gate itself wins over AllAlpha/AllBeta, whatever the order.
      if (spec.stage === stage && !(name in set)) enabled.set(name, value)
    }
  }
  for (const [name, value] of Object.entries(set)) {
    if (name === ALL_ALPHA) { byStage('ALPHA', value); continue }
    if (name === ALL_BETA) { byStage('BETA', value); continue }
    const spec = (FEATURE_GATES as Record<string, FeatureGateSpec>)[name]
    if (spec === undefined) {
      const removed = REMOVED_GATES[name]
      throw new Error(`unrecognized feature gate: ${name}${removed === undefined ? '' : ` (${removed}, since removed: its behaviour is always on)`}`)
    }
    if (spec.lockToDefault === true && spec.default !== value) {
      throw new Error(`cannot set feature gate ${name} to ${String(value)}, feature is locked to ${String(spec.default)}`)
    }
    enabled.set(name as FeatureName, value)
    if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${String(value)}. It will be removed in a future release.`)
    else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${String(value)}. It will be removed in a future release.`)
  }
  return {
    enabled: (name) => enabled.get(name) ?? false,
    warnings,
    toString: () => [...enabled].map(([k, v]) => `${k}=${String(v)}`).sort().join(',')
  }
}

/**
 * The gates as `--help` lists them, as upstream's KnownFeatures: the special AllAlpha/AllBeta
 * and every alpha and beta gate with its default; GA and deprecated gates are not listed.
 */
export function knownFeatures (): string[] {
  const known = [`${ALL_ALPHA}=true|false (ALPHA - default=false)`, `${ALL_BETA}=true|false (BETA - default=false)`]
  for (const [name, spec] of Object.entries(FEATURE_GATES) as Array<[string, FeatureGateSpec]>) {
    if (spec.stage === 'GA' || spec.stage === 'DEPRECATED') continue
    known.push(`${name}=true|false (${spec.stage} - default=${String(spec.default)})`)
  }
  return known.sort()
}
