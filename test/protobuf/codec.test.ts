import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { ProtobufCodec, ENVELOPE_PREFIX, EnvelopeError, sameApiVersion } from '../../plugins/protobuf/codec.js'
import { GROUPS, upstreamGroup } from '../../resources/naming.js'
import { decodeProtobufObject } from '../../plugins/protobuf/index.js'
import { ApiError } from '../../resources/status.js'

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}.bin`, import.meta.url))

// Bodies captured from kubectl 1.33 (1.32 sends the same bytes) and the JSON kubectl sends for them.
const CAPTURED: Array<{ name: string, want: Record<string, unknown> }> = [
  {
    name: 'configmap',
    want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cap-cm2' }, data: { a: 'b' }, binaryData: { bin: 'AAH+/w==' } }
  },
  {
    name: 'secret',
    want: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cap-s' }, data: { pw: 'c2VjcmV0' }, type: 'Opaque' }
  },
  {
    name: 'namespace',
    want: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cap-ns33' }, spec: {}, status: {} }
  },
  {
    name: 'role',
    want: {
      apiVersion: `${upstreamGroup('rbac.authorization')}/v1`,
      kind: 'Role',
      metadata: { name: 'r1' },
      rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }]
    }
  },
  {
    name: 'rolebinding',
    want: {
      apiVersion: `${upstreamGroup('rbac.authorization')}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'rb1' },
      subjects: [
        { kind: 'User', apiGroup: upstreamGroup('rbac.authorization'), name: 'alice' },
        { kind: 'Group', apiGroup: upstreamGroup('rbac.authorization'), name: 'devs' },
        { kind: 'ServiceAccount', name: 'sa1', namespace: 'default' }
      ],
      roleRef: { apiGroup: upstreamGroup('rbac.authorization'), kind: 'Role', name: 'r1' }
    }
  },
  {
    name: 'clusterrolebinding',
    want: {
      apiVersion: `${upstreamGroup('rbac.authorization')}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'crb9' },
      subjects: [{ kind: 'User', apiGroup: upstreamGroup('rbac.authorization'), name: 'bob' }],
      roleRef: { apiGroup: upstreamGroup('rbac.authorization'), kind: 'ClusterRole', name: 'view' }
    }
  },
  {
    name: 'serviceaccount',
    want: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa9' } }
  },
  {
    name: 'tokenrequest',
    want: { apiVersion: `${upstreamGroup('authentication')}/v1`, kind: 'TokenRequest', metadata: {}, spec: { audiences: ['api'], expirationSeconds: 600 }, status: {} }
  },
  {
    name: 'selfsubjectaccessreview',
    want: {
      apiVersion: `${upstreamGroup('authorization')}/v1`,
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { resourceAttributes: { namespace: 'kube-public', verb: 'get', resource: 'pods' } },
      status: { allowed: false }
    }
  },
  {
    name: 'selfsubjectreview',
    want: { apiVersion: `${upstreamGroup('authentication')}/v1`, kind: 'SelfSubjectReview', metadata: {}, status: { userInfo: {} } }
  }
]

const meta = {
  name: 'x',
  namespace: 'ns',
  uid: '0b7a5c1e-1111-4222-8333-444455556666',
  resourceVersion: '42',
  generation: 3,
  creationTimestamp: '2026-01-02T03:04:05Z',
  deletionTimestamp: '2026-01-02T03:05:05Z',
  deletionGracePeriodSeconds: 0,
  labels: { app: 'a', empty: '' },
  annotations: { note: 'n' },
  ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', controller: false, blockOwnerDeletion: true }],
  finalizers: ['f/one'],
  managedFields: [{ manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }]
}

const rbac = `${GROUPS.rbac}/v1`

// One object per message this branch carries: JSON → protobuf → JSON gives the same JSON.
const ROUND_TRIPS: Array<Record<string, unknown>> = [
  { apiVersion: `${GROUPS.node}/v1`, kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler: 'runsc', overhead: { podFixed: { cpu: '250m', memory: '120Mi' } }, scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }, { key: 'x', operator: 'Equal', value: 'y', effect: 'NoExecute', tolerationSeconds: 30 }] } },
  { apiVersion: `${GROUPS.coordination}/v1`, kind: 'Lease', metadata: meta, spec: { holderIdentity: 'host_0d5c', leaseDurationSeconds: 15, acquireTime: '2026-01-02T03:04:05.123456Z', renewTime: '2026-01-02T03:04:07.000001Z', leaseTransitions: 0 } },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels: { k: 'v' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating', conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'ContentDeleted', message: 'm' }] } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { a: 'b', empty: '' }, binaryData: { bin: 'AAH+/w==' }, immutable: false },
  { apiVersion: 'v1', kind: 'Secret', metadata: meta, data: { pw: 'c2VjcmV0', none: '' }, type: 'Opaque', immutable: true },
  { apiVersion: 'v1', kind: 'LimitRange', metadata: meta, spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '16Mi' }, default: { cpu: '500m' }, defaultRequest: { cpu: '100m' }, maxLimitRequestRatio: { cpu: '4' } }, { type: 'PersistentVolumeClaim', max: { storage: '10Gi' } }] } },
  { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta, spec: { hard: { 'count/configmaps': '2', 'requests.cpu': '1' }, scopes: ['NotBestEffort'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }, status: { hard: { 'count/configmaps': '2', 'requests.cpu': '1' }, used: { 'count/configmaps': '0', 'requests.cpu': '500m' } } },
  { apiVersion: 'v1', kind: 'Service', metadata: meta, spec: { ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 'web', nodePort: 30080 }, { name: 'dns', protocol: 'UDP', appProtocol: 'dns', port: 53, targetPort: 53 }], selector: { app: 'a' }, clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::a'], type: 'LoadBalancer', externalIPs: ['1.2.3.4'], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } }, externalTrafficPolicy: 'Local', healthCheckNodePort: 30999, ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack', allocateLoadBalancerNodePorts: true, internalTrafficPolicy: 'Cluster' }, status: { loadBalancer: { ingress: [{ ip: '5.6.7.8', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP' }] }] }, conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1, lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'R', message: 'm' }] } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta, secrets: [{ name: 's', namespace: 'ns', kind: 'Secret' }], imagePullSecrets: [{ name: 'pull' }], automountServiceAccountToken: false },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } }, storageClassName: '', volumeMode: 'Filesystem', selector: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'src', apiGroup: '' } }, status: { phase: 'Bound', capacity: { storage: '1Gi' }, conditions: [{ type: 'Resizing', status: 'True', lastProbeTime: '2026-01-02T03:04:05Z' }] } },
  { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { zone: 'a' } }, spec: { podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24'], providerID: 'p://1', unschedulable: true, taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', timeAdded: '2026-01-02T03:04:05Z' }, { key: 'x', effect: 'NoExecute' }] }, status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '3800m' }, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-02T03:04:05Z', reason: 'KubeletReady', message: 'ok' }], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } }, nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: 'k', osImage: 'o', containerRuntimeVersion: 'c', kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64', swap: { capacity: 0 } }, images: [{ names: ['nginx'], sizeBytes: 1234 }], volumesInUse: ['v'], volumesAttached: [{ name: 'v', devicePath: '/dev/x' }], runtimeHandlers: [{ name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }], features: { supplementalGroupsPolicy: true } } },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', labels: { app: 'a' } },
    spec: {
      volumes: [
        { name: 'cm', configMap: { name: 'settings', items: [{ key: 'k', path: 'p', mode: 0 }], defaultMode: 420, optional: false } },
        { name: 'sec', secret: { secretName: 's', defaultMode: 256 } },
        { name: 'claim', persistentVolumeClaim: { claimName: 'c', readOnly: true } },
        { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
        { name: 'token', projected: { sources: [{ serviceAccountToken: { audience: 'api', expirationSeconds: 3600, path: 't' } }, { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }, { downwardAPI: { items: [{ path: 'ns', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } }], defaultMode: 420 } },
        { name: 'eph', ephemeral: { volumeClaimTemplate: { metadata: { labels: { a: 'b' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
        { name: 'csi', csi: { driver: 'd', readOnly: true, volumeAttributes: { a: 'b' }, nodePublishSecretRef: { name: 's' } } },
        { name: 'img', image: { reference: 'registry/img:1', pullPolicy: 'IfNotPresent' } }
      ],
      initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'true'], restartPolicy: 'Always' }],
      containers: [{
        name: 'app',
        image: 'nginx',
        args: ['--x'],
        workingDir: '/w',
        ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
        env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } }, { name: 'C', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } }],
        envFrom: [{ prefix: 'P_', configMapRef: { name: 'cm' } }],
        resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m' }, claims: [{ name: 'gpu' }] },
        volumeMounts: [{ name: 'cm', mountPath: '/etc/cm', readOnly: true, subPath: 'x', recursiveReadOnly: 'Disabled' }],
        livenessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP', httpHeaders: [{ name: 'X', value: '' }] }, initialDelaySeconds: 5, periodSeconds: 10 },
        readinessProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 2 },
        startupProbe: { grpc: { port: 9000 }, failureThreshold: 30, terminationGracePeriodSeconds: 0 },
        lifecycle: { preStop: { sleep: { seconds: 5 } }, postStart: { exec: { command: ['echo'] } } },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'Always',
        securityContext: { capabilities: { drop: ['ALL'] }, privileged: false, runAsUser: 0, runAsNonRoot: false, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, seccompProfile: { type: 'RuntimeDefault' }, appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } },
        resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
        stdin: true,
        tty: true
      }],
      ephemeralContainers: [{ name: 'debug', image: 'busybox', targetContainerName: 'app', stdin: true }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      nodeSelector: { disk: 'ssd' },
      serviceAccountName: 'default',
      automountServiceAccountToken: false,
      nodeName: 'node-1',
      hostNetwork: true,
      securityContext: { runAsUser: 1000, runAsGroup: 0, fsGroup: 2000, supplementalGroups: [1, 2], sysctls: [{ name: 'net.ipv4.ip_forward', value: '1' }], fsGroupChangePolicy: 'OnRootMismatch', supplementalGroupsPolicy: 'Strict' },
      imagePullSecrets: [{ name: 'pull' }],
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] }, preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n2'] }] } }] },
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'a' } }, topologyKey: 'kubernetes.io/hostname', matchLabelKeys: ['pod-template-hash'] } }] }
      },
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 }],
      hostAliases: [{ ip: '1.2.3.4', hostnames: ['a.local'] }],
      priorityClassName: 'high',
      priority: 0,
      dnsConfig: { nameservers: ['8.8.8.8'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
      readinessGates: [{ conditionType: 'x/ready' }],
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      overhead: { cpu: '250m' },
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'a' } }, minDomains: 2, nodeTaintsPolicy: 'Honor' }],
      os: { name: 'linux' },
      hostUsers: false,
      schedulingGates: [{ name: 'gate' }],
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'tmpl' }],
      resources: { limits: { cpu: '2' } }
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', observedGeneration: 1 }],
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }],
      podIP: '10.1.0.5',
      podIPs: [{ ip: '10.1.0.5' }],
      startTime: '2026-01-02T03:04:00Z',
      containerStatuses: [{ name: 'app', state: { running: { startedAt: '2026-01-02T03:04:01Z' } }, lastState: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: '2026-01-02T03:04:00Z', containerID: 'c://1' } }, ready: true, restartCount: 0, image: 'nginx', imageID: 'sha', containerID: 'c://2', started: true, allocatedResources: { cpu: '100m' }, volumeMounts: [{ name: 'cm', mountPath: '/etc/cm', readOnly: true }], user: { linux: { uid: 0, gid: 0, supplementalGroups: [0, 10] } } }],
      qosClass: 'Burstable',
      resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'p-gpu' }]
    }
  },
  { apiVersion: `${GROUPS.networking}/v1`, kind: 'Ingress', metadata: meta, spec: { ingressClassName: 'nginx', defaultBackend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static' } }, tls: [{ hosts: ['*.example.com'], secretName: 'tls' }], rules: [{ host: 'foo.example.com', http: { paths: [{ path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { number: 8080 } } } }, { pathType: 'ImplementationSpecific', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }, { http: { paths: [{ path: '/', pathType: 'Exact', backend: { service: { name: 'root', port: { number: 80 } } } }] } }] }, status: { loadBalancer: { ingress: [{ ip: '192.0.2.1', ports: [{ port: 443, protocol: 'TCP', error: 'Pending' }] }, { hostname: 'lb.example.com' }] } } },
  { apiVersion: `${GROUPS.networking}/v1`, kind: 'IngressClass', metadata: { name: 'external', annotations: { 'ingressclass.svc.io/is-default-class': 'true' } }, spec: { controller: 'example.com/ingress', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'p', scope: 'Namespace', namespace: 'ingress' } } },
  { apiVersion: `${GROUPS.storage}/v1`, kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'p', parameters: { type: 'ssd' }, reclaimPolicy: 'Retain', mountOptions: ['ro'], allowVolumeExpansion: false, volumeBindingMode: 'WaitForFirstConsumer', allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }] }] },
  { apiVersion: `${GROUPS.storage}/v1`, kind: 'CSIDriver', metadata: { name: 'csi.example.com' }, spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'], storageCapacity: false, fsGroupPolicy: 'File', tokenRequests: [{ audience: '', expirationSeconds: 600 }], requiresRepublish: false, seLinuxMount: true, nodeAllocatableUpdatePeriodSeconds: 60 } },
  { apiVersion: `${GROUPS.storage}/v1`, kind: 'CSINode', metadata: { name: 'node-1' }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1', topologyKeys: ['zone'], allocatable: { count: 0 } }, { name: 'other', nodeID: 'n1' }] } },
  { apiVersion: `${GROUPS.storage}/v1`, kind: 'CSIStorageCapacity', metadata: { name: 'cap', namespace: 'ns' }, nodeTopology: {}, storageClassName: 'fast', capacity: '10Gi', maximumVolumeSize: '1Gi' },
  { apiVersion: `${GROUPS.storage}/v1`, kind: 'VolumeAttachment', metadata: { name: 'va' }, spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv1' }, nodeName: 'node-1' }, status: { attached: false, attachmentMetadata: { dev: '/dev/x' }, attachError: { time: '2026-01-02T03:04:05Z', message: 'boom', errorCode: 0 } } },
  { apiVersion: `${GROUPS.storage}/v1`, kind: 'VolumeAttachment', metadata: { name: 'va2' }, spec: { attacher: 'csi.example.com', source: { inlineVolumeSpec: { capacity: { storage: '5Gi' }, csi: { driver: 'csi.example.com', volumeHandle: 'h', readOnly: true, volumeAttributes: { a: 'b' }, nodeStageSecretRef: { name: 's', namespace: 'ns' } }, accessModes: ['ReadWriteOnce'] } }, nodeName: 'node-1' } },
  { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', finalizers: ['f'] }, spec: { capacity: { storage: '10Gi' }, nfs: { server: 'nfs.example.com', path: '/exports', readOnly: true }, accessModes: ['ReadWriteMany'], claimRef: { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'c', uid: 'u' }, persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'slow', mountOptions: ['hard'], volumeMode: 'Filesystem', nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } }, status: { phase: 'Bound', lastPhaseTransitionTime: '2026-01-02T03:04:05Z' } },
  { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv2' }, spec: { hostPath: { path: '/data', type: '' }, local: { path: '/mnt' }, iscsi: { targetPortal: 'p:3260', iqn: 'iqn.x', lun: 0, portals: ['a'], chapAuthSession: true, secretRef: { name: 's' }, initiatorName: 'i' }, fc: { lun: 0, targetWWNs: ['w'] }, azureDisk: { diskName: 'd', diskURI: 'u', readOnly: false, kind: 'Managed' }, rbd: { monitors: ['m'], image: 'i', secretRef: { name: 's', namespace: 'n' } }, scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' }, sslEnabled: true }, storageos: { volumeName: 'v', secretRef: { kind: 'Secret', name: 's' } }, flexVolume: { driver: 'd', options: { o: '1' } }, cephfs: { monitors: ['m'], secretRef: { name: 's' } }, glusterfs: { endpoints: 'e', path: 'p', endpointsNamespace: '' }, csi: { driver: 'd', volumeHandle: 'h', nodeExpandSecretRef: { name: 'e' } } } },
  { apiVersion: `${GROUPS.certificates}/v1`, kind: 'CertificateSigningRequest', metadata: { name: 'jane' }, spec: { request: 'LS0tLS1CRUdJTg==', signerName: 'svc.io/svc-apiserver-client', expirationSeconds: 600, usages: ['client auth'], username: 'jane', uid: 'u1', groups: ['devs'], extra: { scopes: ['a', 'b'] } }, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Ok', message: 'fine', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }], certificate: 'LS0tLS1CRUdJTg==' } },
  { apiVersion: `${GROUPS.storage}/v1`, kind: 'VolumeAttributesClass', metadata: { name: 'gold' }, driverName: 'csi.example.com', parameters: { iops: '100' } },
  { apiVersion: rbac, kind: 'Role', metadata: meta, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }] },
  { apiVersion: rbac, kind: 'ClusterRole', metadata: { name: 'c' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] } },
  { apiVersion: rbac, kind: 'RoleBinding', metadata: meta, subjects: [{ kind: 'User', apiGroup: GROUPS.rbac, name: 'alice' }], roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'r' } },
  { apiVersion: rbac, kind: 'ClusterRoleBinding', metadata: { name: 'b' }, subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }], roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: 'c' } },
  { apiVersion: `${GROUPS.authorization}/v1`, kind: 'SubjectAccessReview', metadata: {}, spec: { resourceAttributes: { namespace: 'ns', verb: 'list', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: 'd', fieldSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] }, labelSelector: { requirements: [{ key: 'x', operator: 'Exists' }] } }, user: 'alice', groups: ['g'], extra: { scopes: ['a', 'b'] }, uid: 'u' }, status: { allowed: true, reason: 'ok' } },
  { apiVersion: `${GROUPS.authorization}/v1`, kind: 'LocalSubjectAccessReview', metadata: { namespace: 'ns' }, spec: { nonResourceAttributes: { path: '/x', verb: 'get' }, user: 'bob' }, status: { allowed: false, denied: true, evaluationError: 'e' } },
  { apiVersion: `${GROUPS.authorization}/v1`, kind: 'SelfSubjectAccessReview', metadata: {}, spec: { resourceAttributes: { verb: 'get', resource: 'pods' } }, status: { allowed: true } },
  { apiVersion: `${GROUPS.authorization}/v1`, kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'ns' }, status: { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api'] }], incomplete: true } },
  { apiVersion: `${GROUPS.authentication}/v1`, kind: 'TokenRequest', metadata: { name: 'sa', namespace: 'ns' }, spec: { audiences: ['api'], expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'u' } }, status: { token: 'ey.x.y', expirationTimestamp: '2026-01-02T04:04:05Z' } },
  { apiVersion: `${GROUPS.authentication}/v1`, kind: 'TokenReview', metadata: {}, spec: { token: 't', audiences: ['api'] }, status: { authenticated: true, user: { username: 'u', uid: 'id', groups: ['g'], extra: { k: ['v'] } }, audiences: ['api'] } },
  { apiVersion: `${GROUPS.authentication}/v1`, kind: 'SelfSubjectReview', metadata: { creationTimestamp: '2026-01-02T03:04:05Z' }, status: { userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] } } },
  { apiVersion: 'v1', kind: 'Event', metadata: meta, involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{app}' }, reason: 'Pulled', message: 'pulled', source: { component: 'kubelet', host: 'node-1' }, firstTimestamp: '2026-01-02T03:04:05Z', lastTimestamp: '2026-01-02T03:05:05Z', count: 2, type: 'Normal', eventTime: '2026-01-02T03:04:05.123456Z', series: { count: 2, lastObservedTime: '2026-01-02T03:05:05.000001Z' }, action: 'Pull', related: { kind: 'Node', name: 'node-1' }, reportingComponent: 'kubelet', reportingInstance: '' },
  { apiVersion: `${GROUPS.events}/v1`, kind: 'Event', metadata: meta, eventTime: '2026-01-02T03:04:05.123456Z', series: { count: 3, lastObservedTime: '2026-01-02T03:05:05.000001Z' }, reportingController: 'svc.io/scheduler', reportingInstance: 'sched-1', action: 'Binding', reason: 'Scheduled', regarding: { kind: 'Pod', namespace: 'ns', name: 'p' }, related: { kind: 'Node', name: 'node-1' }, note: 'assigned', type: 'Normal', deprecatedSource: { component: 'c' }, deprecatedFirstTimestamp: '2026-01-02T03:04:05Z', deprecatedLastTimestamp: '2026-01-02T03:05:05Z', deprecatedCount: 1 },
  { apiVersion: `${GROUPS.scheduling}/v1`, kind: 'PriorityClass', metadata: { name: 'zero' }, value: 0, globalDefault: true, description: 'd', preemptionPolicy: 'Never' },
  { apiVersion: `${GROUPS.admissionregistration}/v1`, kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' }, webhooks: [{ name: 'm.example.com', clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/mutate', port: 443 }, caBundle: 'LS0tLS1CRUdJTg==' }, rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }], failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'Exists' }] }, objectSelector: { matchLabels: { a: 'b' } }, sideEffects: 'None', timeoutSeconds: 0, admissionReviewVersions: ['v1'], reinvocationPolicy: 'IfNeeded', matchConditions: [{ name: 'c', expression: 'true' }] }] },
  { apiVersion: `${GROUPS.admissionregistration}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [{ name: 'v.example.com', clientConfig: { url: 'https://hook.example.com/validate' }, rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }], failurePolicy: 'Ignore', objectSelector: {}, sideEffects: 'NoneOnDryRun', timeoutSeconds: 5, admissionReviewVersions: ['v1', 'v1beta1'], matchConditions: [{ name: 'c', expression: 'true' }] }] },
  { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7', continue: 'tok', remainingItemCount: 0 }, items: [{ metadata: { name: 'a' }, data: { k: 'v' } }, { metadata: { name: 'b' } }] },
  { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'm', reason: 'Invalid', details: { name: 'x', group: GROUPS.rbac, kind: 'roles', uid: 'u', retryAfterSeconds: 1, causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'metadata.name' }] }, code: 422 },
  { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: 'u', resourceVersion: '' }, propagationPolicy: 'Foreground', dryRun: ['All'] }
]

describe('protobuf codec', () => {
  let codec: ProtobufCodec
  before(async () => { codec = await ProtobufCodec.load() })

  for (const c of CAPTURED) {
    it(`decodes the ${c.name} body kubectl sends into the JSON kubectl sends`, () => {
      assert.deepEqual(codec.decode(fixture(c.name)), c.want)
    })
  }

  for (const obj of ROUND_TRIPS) {
    it(`round-trips a ${obj.kind as string} through protobuf`, () => {
      const body = codec.encode(obj)
      assert.ok(body.subarray(0, 4).equals(ENVELOPE_PREFIX))
      assert.deepEqual(codec.open(body).typeMeta, { apiVersion: obj.apiVersion, kind: obj.kind })
      const back = codec.decode(body)
      // List items carry no typeMeta on the wire; everything else comes back as it went.
      assert.deepEqual(back, obj)
    })
  }

  it('renders zero values as upstream JSON does: pointers kept, plain scalars and empty collections left out', () => {
    const body = codec.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'z', namespace: '', generation: 0, labels: {}, finalizers: [] }, data: {}, immutable: false })
    assert.deepEqual(codec.decode(body), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'z' }, immutable: false })
  })

  it('keeps sub-second precision out of Time and reads offsets as UTC', () => {
    const body = codec.encode({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', creationTimestamp: '2026-01-02T05:04:05.123+02:00' } })
    assert.equal(codec.decode(body).metadata.creationTimestamp, '2026-01-02T03:04:05Z')
  })

  it('rejects a body whose prefix differs', () => {
    const body = Buffer.from(fixture('configmap'))
    body[3] = 0x01
    assert.throws(() => codec.decode(body), EnvelopeError)
    assert.throws(() => codec.decode(Buffer.from('{"kind":"ConfigMap"}')), EnvelopeError)
    assert.throws(() => codec.decode(ENVELOPE_PREFIX.subarray(0, 3)), EnvelopeError)
  })

  it('rejects an envelope cut short', () => {
    const body = fixture('configmap')
    assert.throws(() => codec.decode(body.subarray(0, body.length - 5)), EnvelopeError)
  })

  it('rejects a kind it has no message for', () => {
    // typeMeta { apiVersion: "v1", kind: "Widget" } and no raw message.
    const widget = Buffer.concat([ENVELOPE_PREFIX, Buffer.from([0x0a, 12, 0x0a, 2]), Buffer.from('v1'), Buffer.from([0x12, 6]), Buffer.from('Widget')])
    assert.deepEqual(codec.open(widget).typeMeta, { apiVersion: 'v1', kind: 'Widget' })
    assert.throws(() => codec.decode(widget), /no kind "Widget" is registered for version "v1"/)
    assert.throws(() => codec.encode({ apiVersion: 'v1', kind: 'NoSuchKind' }), EnvelopeError)
    assert.equal(codec.messageOf('example.com/v1', 'Widget'), undefined)
    assert.equal(codec.supports('v1', 'Status'), false)
    assert.equal(codec.supports('v1', 'ConfigMap'), true)
  })

  it('frames watch events with a 4-byte big-endian length', () => {
    const a = codec.watchFrame('ADDED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } })
    const b = codec.watchFrame('BOOKMARK', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '9' } })
    assert.equal(a.readUInt32BE(0), a.length - 4)
    assert.deepEqual(codec.readWatchFrames(Buffer.concat([a, b])), [
      { type: 'ADDED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } },
      { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '9' } } }
    ])
  })

  it('counts a group and its upstream twin as one apiVersion', () => {
    assert.equal(sameApiVersion(`${GROUPS.rbac}/v1`, `${upstreamGroup('rbac.authorization')}/v1`), true)
    assert.equal(sameApiVersion(`${GROUPS.rbac}/v1`, `${GROUPS.rbac}/v1beta1`), false)
    assert.equal(sameApiVersion('v1', `${GROUPS.rbac}/v1`), false)
  })

  it('answers 415 to a protobuf body for a kind without a message, 400 to a bad body for one with', () => {
    const is = (code: number) => (err: unknown) => err instanceof ApiError && err.code === code
    assert.throws(() => decodeProtobufObject(codec, fixture('configmap'), { apiVersion: 'example.com/v1', kind: 'Widget' }), is(415))
    assert.throws(() => decodeProtobufObject(codec, Buffer.from('garbage'), { apiVersion: 'v1', kind: 'ConfigMap' }), is(400))
    assert.deepEqual(decodeProtobufObject(codec, fixture('role'), { apiVersion: `${GROUPS.rbac}/v1`, kind: 'Role' }).apiVersion, `${GROUPS.rbac}/v1`)
  })

  it('reads a subresource body of another group in the group its typeMeta names (serviceaccounts/token)', () => {
    const obj = decodeProtobufObject(codec, fixture('tokenrequest'), { apiVersion: 'v1', kind: 'TokenRequest' })
    assert.equal(obj.apiVersion, `${upstreamGroup('authentication')}/v1`)
    assert.deepEqual(obj.spec, { audiences: ['api'], expirationSeconds: 600 })
    // A kind of the URL's own group still has to name that group.
    assert.throws(() => decodeProtobufObject(codec, fixture('role'), { apiVersion: 'v1', kind: 'ConfigMap' }), /does not match the expected API version/)
  })

  it('refuses to drop a field its message lacks, unless asked to be lenient', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', futureField: 'x' }, data: { k: 'v' } }
    assert.throws(() => codec.encode(obj), /metadata\.futureField: no such field in the protobuf message meta\.v1\.ObjectMeta/)
    assert.equal(codec.tryEncode(obj), undefined)
    assert.deepEqual(codec.decode(codec.encode(obj, true)), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } })
  })

  it('puts an inlined struct at its own field number: PersistentVolume spec.nfs is spec field 2, source field 5', () => {
    const body = codec.encode({ apiVersion: 'v1', kind: 'PersistentVolume', spec: { nfs: { server: 's' } } })
    assert.equal(Buffer.from(codec.open(body).raw).toString('hex'), '12071205' + '2a03' + '0a0173')
  })

  it('writes repeated integers unpacked, as upstream proto2 does', () => {
    const body = codec.encode({ apiVersion: 'v1', kind: 'Pod', spec: { securityContext: { supplementalGroups: [1, 2] } } })
    assert.equal(Buffer.from(codec.open(body).raw).toString('hex'), '1206' + '7204' + '2001' + '2002')
  })
})
