// The one naming table: every identifier that carries the vendor's name is spelled here and
// nowhere else. Real clients hard-code a few upstream names; their aliases live here too.

export const VENDOR = 'svc'
export const GROUP_SUFFIX = `${VENDOR}.io`
/** The upstream suffix some clients hard-code (Table and discovery Accept headers, access reviews). */
export const UPSTREAM_GROUP_SUFFIX = 'k8s.io'

/** A named API group: `group('storage')` is `storage.svc.io`. */
export const group = (prefix: string): string => `${prefix}.${GROUP_SUFFIX}`
/** The upstream twin of a group name, for the places real clients hard-code it. */
export const upstreamGroup = (prefix: string): string => `${prefix}.${UPSTREAM_GROUP_SUFFIX}`

export const GROUPS = {
  meta: group('meta'),
  storage: group('storage'),
  rbac: group('rbac.authorization'),
  authorization: group('authorization'),
  authentication: group('authentication'),
  certificates: group('certificates'),
  admissionregistration: group('admissionregistration'),
  admission: group('admission'),
  apiserverConfig: group('apiserver.config'),
  clientAuthentication: group('client.authentication'),
  imagepolicy: group('imagepolicy'),
  bootstrap: group('bootstrap'),
  audit: group('audit'),
  coordination: group('coordination'),
  scheduling: group('scheduling'),
  networking: group('networking'),
  events: group('events'),
  node: group('node'),
  apiextensions: group('apiextensions'),
  discovery: group('discovery'),
  flowcontrol: group('flowcontrol.apiserver')
} as const

/** Groups whose objects clients request in the Accept header under the upstream name too. */
export const TABLE_GROUPS = [GROUPS.meta, upstreamGroup('meta')] as const

export const MEDIA_TYPES = {
  json: 'application/json',
  yaml: 'application/yaml',
  protobuf: `application/vnd.${VENDOR}.protobuf`,
  upstreamProtobuf: 'application/vnd.kubernetes.protobuf',
  jsonPatch: 'application/json-patch+json',
  mergePatch: 'application/merge-patch+json',
  strategicMergePatch: 'application/strategic-merge-patch+json',
  applyPatch: 'application/apply-patch+yaml'
} as const

export const NAMESPACES = {
  default: 'default',
  system: `${VENDOR}-system`,
  public: `${VENDOR}-public`,
  nodeLease: `${VENDOR}-node-lease`
} as const

/** The Lease in the system namespace whose holder runs the in-process controllers (upstream's kube-controller-manager lease). */
export const CONTROLLER_MANAGER_LEASE = `${VENDOR}-controller-manager`

/** Namespaces the NamespaceLifecycle plugin refuses to delete. */
export const PROTECTED_NAMESPACES: readonly string[] = [NAMESPACES.default, NAMESPACES.system, NAMESPACES.public]

export const LABELS = {
  /** Set on every namespace to its own name. */
  namespaceName: `${GROUP_SUFFIX}/metadata.name`,
  bootstrapping: `${GROUP_SUFFIX}/bootstrapping`,
  /** `node-role.svc.io/<role>` labels name a node's roles (kubectl's Roles column). */
  nodeRolePrefix: `node-role.${GROUP_SUFFIX}/`,
  nodeRole: `${GROUP_SUFFIX}/role`
} as const

export const ANNOTATIONS = {
  defaultStorageClass: `storageclass.${GROUP_SUFFIX}/is-default-class`,
  defaultIngressClass: `ingressclass.${GROUP_SUFFIX}/is-default-class`,
  /** The class an Ingress named before spec.ingressClassName existed (deprecated, still honoured). */
  ingressClass: `${GROUP_SUFFIX}/ingress.class`,
  deprecated: `${GROUP_SUFFIX}/deprecated`,
  /** Audit annotation beside `deprecated`: the release that removes the version asked for. */
  removedRelease: `${GROUP_SUFFIX}/removed-release`,
  /** Set by LimitRanger on a pod whose containers it gave default requests or limits. */
  limitRanger: `${GROUP_SUFFIX}/limit-ranger`,
  /** kubectl's own annotation (client-side apply), spelled as kubectl spells it whatever the vendor. */
  lastAppliedConfiguration: 'kubectl.kubernetes.io/last-applied-configuration'
} as const

export const FINALIZERS = {
  /** The namespace finalizer lives in spec.finalizers and is removed only through /finalize. */
  namespace: VENDOR,
  pvcProtection: `${GROUP_SUFFIX}/pvc-protection`,
  pvProtection: `${GROUP_SUFFIX}/pv-protection`,
  /** Holds a deleted CustomResourceDefinition until its instances are gone. */
  customResourceCleanup: `customresourcecleanup.${group('apiextensions')}`
} as const

export const SECRET_TYPES = {
  opaque: 'Opaque',
  serviceAccountToken: `${GROUP_SUFFIX}/service-account-token`,
  bootstrapToken: `bootstrap.${GROUP_SUFFIX}/token`,
  dockercfg: `${GROUP_SUFFIX}/dockercfg`,
  dockerConfigJson: `${GROUP_SUFFIX}/dockerconfigjson`,
  basicAuth: `${GROUP_SUFFIX}/basic-auth`,
  sshAuth: `${GROUP_SUFFIX}/ssh-auth`,
  tls: `${GROUP_SUFFIX}/tls`
} as const

/** The built-in certificate signers (the spec's names: the node agent is the `svclet`). */
export const SIGNERS = {
  apiserverClient: `${GROUP_SUFFIX}/${VENDOR}-apiserver-client`,
  apiserverClientSvclet: `${GROUP_SUFFIX}/${VENDOR}-apiserver-client-${VENDOR}let`,
  svcletServing: `${GROUP_SUFFIX}/${VENDOR}let-serving`,
  legacyUnknown: `${GROUP_SUFFIX}/legacy-unknown`
} as const

/** Node identities: a node's certificate names `system:node:<name>` in `system:nodes`. */
export const NODES = {
  userPrefix: 'system:node:',
  group: 'system:nodes'
} as const

/**
 * The labels a node agent may set on its own Node (NodeRestriction), under each domain that
 * names node labels: ours and the upstream spellings real node agents send. Under such a domain
 * only these keys and the agent's own label namespaces are allowed, and the node-restriction
 * namespace never.
 */
export const NODE_LABEL_DOMAINS = [
  nodeLabelDomain(GROUP_SUFFIX, [`nodeagent.${GROUP_SUFFIX}`, `node.${GROUP_SUFFIX}`]),
  nodeLabelDomain('kubernetes.io', ['kubelet.kubernetes.io', 'node.kubernetes.io']),
  { ...nodeLabelDomain(UPSTREAM_GROUP_SUFFIX, []), allowed: [] as string[] }
]

function nodeLabelDomain (domain: string, agentNamespaces: string[]) {
  return {
    domain,
    agentNamespaces,
    restrictedNamespace: `node-restriction.${domain}`,
    allowed: [
      `${domain}/hostname`, `${domain}/arch`, `${domain}/os`, `beta.${domain}/arch`, `beta.${domain}/os`,
      `beta.${domain}/instance-type`, `node.${domain}/instance-type`, `node.${domain}/windows-build`,
      `failure-domain.beta.${domain}/region`, `failure-domain.beta.${domain}/zone`, `topology.${domain}/region`, `topology.${domain}/zone`
    ]
  }
}

/** The channel the store NOTIFYs on after each write transaction. */
export const NOTIFY_CHANNEL = `${VENDOR}_events`

/** Identity of this server in /version and in generated certificates. */
export const SERVER_NAME = `${VENDOR}-apiserver`

/** The Kubernetes API level this server implements, as /version reports it. */
export const API_LEVEL = { major: '1', minor: '33' } as const
export const gitVersion = (ourVersion: string): string => `v${API_LEVEL.major}.${API_LEVEL.minor}.0-${VENDOR}.${ourVersion}`

/** Upstream in-cluster DNS names of the API server that clients inside a cluster dial; fixed strings, not vendor-derived. */
export const IN_CLUSTER_DNS_NAMES: readonly string[] = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc']

export const SERVICE_ACCOUNT_ANNOTATIONS = {
  name: `${GROUP_SUFFIX}/service-account.name`,
  uid: `${GROUP_SUFFIX}/service-account.uid`
} as const

/** The identity in-process controllers act as. */
export const CONTROLLER_USER = { username: `system:${VENDOR}-controller-manager`, groups: ['system:authenticated'] } as const

/**
 * OpenAPI definition names follow the upstream Go package paths, which clients show in
 * `kubectl explain` and use as stable references: `io.k8s.api.core.v1.ConfigMap`.
 */
export const OPENAPI_NAMES = {
  apiPackagePrefix: 'io.k8s.api',
  metaPackage: 'io.k8s.apimachinery.pkg.apis.meta.v1'
} as const
/** The bytes before every protobuf message: the upstream `k8s\0`, which real clients hard-code. */
export const PROTOBUF_ENVELOPE_MAGIC: readonly number[] = [0x6b, 0x38, 0x73, 0x00]

/**
 * API Priority and Fairness: the bootstrap objects' annotation (upstream's
 * `apf.kubernetes.io/autoupdate-spec`, vendor-spelt as RBAC's autoupdate annotation is), the
 * identities its suggested schemas name, and the names of the suggested schemas that carry the
 * vendor's name upstream (kube-controller-manager, kube-scheduler, kube-system-service-accounts).
 */
export const FLOWCONTROL = {
  /** `"true"` lets the server keep a bootstrap FlowSchema or PriorityLevelConfiguration at its built-in spec. */
  autoupdateAnnotation: `apf.${GROUP_SUFFIX}/autoupdate-spec`,
  /** What releases before 2026-11-28 wrote instead: still read, so their objects are kept or retired. */
  formerAutoupdateAnnotation: 'apf.kubernetes.io/autoupdate-spec',
  /** The scheduler's user (upstream's system:kube-scheduler). */
  schedulerUser: `system:${VENDOR}-scheduler`,
  controllerManagerSchema: `${VENDOR}-controller-manager`,
  schedulerSchema: `${VENDOR}-scheduler`,
  systemServiceAccountsSchema: `${NAMESPACES.system}-service-accounts`
} as const

/** RBAC's own labels and annotations, and the upstream names it must accept. */
export const RBAC = {
  /** Labels by which `admin`, `edit` and `view` collect the rules of other ClusterRoles. */
  aggregateTo: (role: 'admin' | 'edit' | 'view'): string => `${GROUPS.rbac}/aggregate-to-${role}`,
  /** `false` stops the server from reconciling a default role or binding at start. */
  autoupdateAnnotation: `${GROUPS.rbac}/autoupdate`,
  bootstrappingValue: 'rbac-defaults'
} as const

/**
 * The one rule for upstream spellings: every vendor group (`storage.svc.io`) is served under its
 * upstream twin (`storage.k8s.io`) too, because typed clients hard-code those names (client-go's
 * and @kubernetes/client-node's typed APIs, leader election, `kubectl auth reconcile`,
 * `kubectl create token`). Paths, bodies, answers, admission and audit take either spelling; a
 * kind whose group is in GROUPS has it with no more said (test/architecture holds every kind to
 * that). Groups without a vendor suffix (apps, batch) are spelled alike by both.
 */
export const GROUP_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(GROUPS).map(g => [upstreamTwin(g), g]))

/** `storage.svc.io` → `storage.k8s.io`; a group without the vendor suffix is its own twin. */
export function upstreamTwin (group: string): string {
  return group.endsWith(`.${GROUP_SUFFIX}`) ? `${group.slice(0, -GROUP_SUFFIX.length)}${UPSTREAM_GROUP_SUFFIX}` : group
}

/**
 * Aliases discovery also announces: `kubectl certificate approve|deny` resolves
 * `certificatesigningrequests` through discovery and handles only objects of the upstream group;
 * Ingress manifests are written for `networking.k8s.io/v1` almost everywhere, and kubectl maps
 * their kind to a path through discovery.
 */
export const DISCOVERED_ALIASES: readonly string[] = [upstreamGroup('certificates'), upstreamGroup('networking')]

/** Our name of a group a client may spell the upstream way (roleRef.apiGroup from kubectl). */
export const canonicalGroup = (name: string): string => GROUP_ALIASES[name] ?? name

/** Whether two group names are one group, spelled either way (a rule naming `coordination.k8s.io` grants leases of `coordination.svc.io`). */
export const sameGroup = (a: string, b: string): boolean => a === b || canonicalGroup(a) === canonicalGroup(b)

/** The ABAC policy file format is upstream's, group name included. */
export const ABAC_API_VERSION = 'abac.authorization.kubernetes.io/v1beta1'

/** apiVersions of --admission-control-config-file documents: ours, and the upstream spelling copied from upstream guides. */
export const ADMISSION_CONFIG_API_VERSIONS: readonly string[] = ['v1', 'v1beta1', 'v1alpha1']
  .flatMap(v => [`${GROUPS.apiserverConfig}/${v}`, `${upstreamGroup('apiserver.config')}/${v}`])

/** Admission webhooks' names: audit annotation keys and the webhook plugins' configuration kind. */
export const ADMISSION_WEBHOOK = {
  mutationAnnotationPrefix: `mutation.webhook.admission.${GROUP_SUFFIX}/`,
  patchAnnotationPrefix: `patch.webhook.admission.${GROUP_SUFFIX}/`,
  failedOpenMutatingPrefix: `failed-open.mutation.webhook.admission.${GROUP_SUFFIX}/`,
  failedOpenValidatingPrefix: `failed-open.validating.webhook.admission.${GROUP_SUFFIX}/`,
  configurationKinds: ['WebhookAdmissionConfiguration', 'WebhookAdmission'] as readonly string[],
  /** Service references are reached at `<name>.<namespace>.svc`. */
  serviceDomain: 'svc'
} as const

/** ValidatingAdmissionPolicy's audit annotation for a failed validation with the Audit action. */
export const ADMISSION_POLICY = {
  validationFailureAnnotation: `validation.policy.admission.${GROUP_SUFFIX}/validation_failure`
} as const

/** EventRateLimit's configuration: kind Configuration in our group, or in the upstream spelling copied from upstream guides. */
export const EVENT_RATE_LIMIT = {
  configurationKind: 'Configuration',
  configurationApiVersions: [`eventratelimit.admission.${GROUP_SUFFIX}/v1alpha1`, `eventratelimit.admission.${UPSTREAM_GROUP_SUFFIX}/v1alpha1`] as readonly string[]
} as const

/** ImagePolicyWebhook: the ImageReview it sends, the pod annotations it forwards, its audit and failed-open keys. */
export const IMAGE_POLICY = {
  reviewApiVersion: `${GROUPS.imagepolicy}/v1alpha1`,
  /** The ImageReview group versions --runtime-config may name: the type only, no resource is served. */
  runtimeConfigKeys: [`${GROUPS.imagepolicy}/v1alpha1`, `${upstreamGroup('imagepolicy')}/v1alpha1`] as readonly string[],
  /** A pod annotation is forwarded when its key contains one of these (`<anything>.image-policy.svc.io/<anything>`). */
  forwardedAnnotationInfixes: [`.image-policy.${GROUP_SUFFIX}/`, `.image-policy.${UPSTREAM_GROUP_SUFFIX}/`] as readonly string[],
  auditAnnotationPrefix: `imagepolicywebhook.image-policy.${GROUP_SUFFIX}/`,
  /** Set on a pod admitted because the backend failed and the policy allows by default. */
  failedOpenPodAnnotation: `alpha.image-policy.${GROUP_SUFFIX}/failed-open`
} as const

/** Authentication identities and names (bootstrap tokens, service accounts, impersonation). */
export const BOOTSTRAP = {
  secretPrefix: 'bootstrap-token-',
  userPrefix: 'system:bootstrap:',
  group: 'system:bootstrappers',
  /** Extra groups a bootstrap token may add must start with this. */
  extraGroupPrefix: 'system:bootstrappers:'
} as const

export const SERVICE_ACCOUNTS = {
  userPrefix: 'system:serviceaccount:',
  group: 'system:serviceaccounts',
  defaultName: 'default',
  /** The private claim of bound service-account tokens (namespace, serviceaccount, pod, secret, node). */
  claimKey: GROUP_SUFFIX,
  /** The claim key prefix of legacy (secret-based) tokens. */
  legacyClaimPrefix: `${GROUP_SUFFIX}/serviceaccount/`,
  legacyIssuer: `${VENDOR}/serviceaccount`
} as const

/** The default --service-account-issuer: the in-cluster URL of this server. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc'

/** The ConfigMap with the cluster CA published in every namespace. */
export const ROOT_CA_CONFIGMAP = `${VENDOR}-root-ca.crt`

/** ExecCredential's group: kubectl hard-codes the upstream name, so the plugin must answer with it. */
export const EXEC_CREDENTIAL_GROUP = upstreamGroup('client.authentication')

/** Impersonation request headers, as clients send them. */
export const IMPERSONATE_HEADERS = {
  user: 'impersonate-user',
  group: 'impersonate-group',
  uid: 'impersonate-uid',
  extraPrefix: 'impersonate-extra-'
} as const

/** What the ServiceAccount admission plugin adds to pods: the token volume and where it is mounted. */
export const POD_SERVICE_ACCOUNT = {
  /** The projected volume is named this prefix plus five random characters. */
  volumePrefix: `${VENDOR}-api-access-`,
  mountPath: `/var/run/secrets/${GROUP_SUFFIX}/serviceaccount`,
  /** `true` on an account checks that its pods use only the secrets it lists. */
  enforceMountableSecrets: `${GROUP_SUFFIX}/enforce-mountable-secrets`
} as const

/** Annotations the reference once read and now only warns about (deprecation-warnings.ts, services.ts). */
export const DEPRECATED_ANNOTATIONS = {
  betaStorageClass: `volume.beta.${GROUP_SUFFIX}/storage-class`,
  betaMountOptions: `volume.beta.${GROUP_SUFFIX}/mount-options`,
  criticalPod: `scheduler.alpha.${GROUP_SUFFIX}/critical-pod`,
  sysctls: `security.alpha.${GROUP_SUFFIX}/sysctls`,
  unsafeSysctls: `security.alpha.${GROUP_SUFFIX}/unsafe-sysctls`,
  topologyAwareHints: `service.${GROUP_SUFFIX}/topology-aware-hints`,
  /** The annotation that replaced topology-aware-hints (named in its warning). */
  topologyMode: `service.${GROUP_SUFFIX}/topology-mode`
} as const

/** Marks a pod the node agent mirrors from a static manifest. */
export const MIRROR_POD_ANNOTATION = `${GROUP_SUFFIX}/config.mirror`

/** Taints the node lifecycle puts on nodes by their conditions (not ready, unreachable, under pressure) and on cordoned ones. */
export const NODE_TAINTS = {
  notReady: `node.${GROUP_SUFFIX}/not-ready`,
  unreachable: `node.${GROUP_SUFFIX}/unreachable`,
  memoryPressure: `node.${GROUP_SUFFIX}/memory-pressure`,
  diskPressure: `node.${GROUP_SUFFIX}/disk-pressure`,
  pidPressure: `node.${GROUP_SUFFIX}/pid-pressure`,
  networkUnavailable: `node.${GROUP_SUFFIX}/network-unavailable`,
  unschedulable: `node.${GROUP_SUFFIX}/unschedulable`
} as const

/** Namespace annotations the scheduling admission plugins read (PodNodeSelector, PodTolerationRestriction). */
export const SCHEDULER_ANNOTATIONS = {
  nodeSelector: `scheduler.alpha.${GROUP_SUFFIX}/node-selector`,
  defaultTolerations: `scheduler.alpha.${GROUP_SUFFIX}/defaultTolerations`,
  tolerationsWhitelist: `scheduler.alpha.${GROUP_SUFFIX}/tolerationsWhitelist`
} as const

/** The NoSchedule taint a node under memory pressure carries; pods that are not BestEffort tolerate it (PodTolerationRestriction). */
export const MEMORY_PRESSURE_TAINT = NODE_TAINTS.memoryPressure

/** The label every node carries with its host name (the only pod anti-affinity topology LimitPodHardAntiAffinityTopology allows). */
export const HOSTNAME_LABEL = `${GROUP_SUFFIX}/hostname`

/** PodSecurity admission: namespace labels (`<prefix>enforce`, `<prefix>enforce-version`, …), audit annotation keys, the pod annotations its checks read, and its configuration's apiVersions. */
export const POD_SECURITY = {
  labelPrefix: `pod-security.${GROUP_SUFFIX}/`,
  appArmorContainerAnnotationPrefix: `container.apparmor.security.beta.${GROUP_SUFFIX}/`,
  seccompPodAnnotation: `seccomp.security.alpha.${GROUP_SUFFIX}/pod`,
  seccompContainerAnnotationPrefix: `container.seccomp.security.alpha.${GROUP_SUFFIX}/`,
  configurationKind: 'PodSecurityConfiguration',
  configurationApiVersions: ['v1', 'v1beta1', 'v1alpha1']
    .flatMap(v => [`pod-security.admission.config.${GROUP_SUFFIX}/${v}`, `${upstreamGroup('pod-security.admission.config')}/${v}`]) as readonly string[]
} as const

/**
 * What the endpoint controllers put on what they make: the Service a slice belongs to and who
 * manages it (labels under kubernetes.io, spelled as upstream; the manager's name is ours).
 */
export const ENDPOINT_SLICES = {
  serviceNameLabel: 'kubernetes.io/service-name',
  managedByLabel: 'endpointslice.kubernetes.io/managed-by',
  controllerName: `endpointslice-controller.${GROUP_SUFFIX}`,
  /** Set on Services without a cluster IP, and copied to their Endpoints and slices. */
  headlessLabel: 'service.kubernetes.io/headless',
  /** On the `kubernetes` Endpoints the server writes itself: no controller mirrors it into a slice. */
  skipMirrorLabel: 'endpointslice.kubernetes.io/skip-mirror'
} as const
