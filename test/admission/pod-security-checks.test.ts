// The pod security standards' checks, one table row per check and level: a pod that passes, a
// pod that does not, and the reason and detail the reference library gives for it; versions
// where a check changes or does not exist yet; the order of reasons in a refusal.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { evaluatePod, violationDetails } from '../../admission/pod-security/evaluate.js'
import { LATEST, type LevelVersion } from '../../admission/pod-security/policy.js'
import { POD_SECURITY } from '../../resources/naming.js'

type AnyObject = Record<string, any>

const BASELINE: LevelVersion = { level: 'baseline', version: LATEST }
const RESTRICTED: LevelVersion = { level: 'restricted', version: LATEST }

/** A pod that passes restricted: every container drops ALL, runs as non-root, no escalation, RuntimeDefault seccomp. */
const restrictedContainer = (name: string, extra: AnyObject = {}): AnyObject => ({
  name,
  image: 'nginx',
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, ...extra }
})
const restrictedPod = (spec: AnyObject = {}, metadata: AnyObject = {}): { metadata: AnyObject, spec: AnyObject } => ({
  metadata,
  spec: { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers: [restrictedContainer('a')], ...spec }
})
const plainPod = (spec: AnyObject, metadata: AnyObject = {}): { metadata: AnyObject, spec: AnyObject } =>
  ({ metadata, spec: { containers: [{ name: 'a', image: 'nginx' }], ...spec } })

const violations = (lv: LevelVersion, pod: { metadata: AnyObject, spec: AnyObject }): Array<{ reason: string, detail: string }> => evaluatePod(lv, pod)

interface Row { check: string, pass: { metadata: AnyObject, spec: AnyObject }, fail: { metadata: AnyObject, spec: AnyObject }, reason: string, detail: string }

const BASELINE_ROWS: Row[] = [
  {
    check: 'hostProcess',
    pass: plainPod({ securityContext: { windowsOptions: { hostProcess: false } } }),
    fail: plainPod({ securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }] }),
    reason: 'hostProcess',
    detail: 'pod and container "a" must not set securityContext.windowsOptions.hostProcess=true'
  },
  {
    check: 'host namespaces',
    pass: plainPod({ hostNetwork: false }),
    fail: plainPod({ hostNetwork: true, hostPID: true, hostIPC: true }),
    reason: 'host namespaces',
    detail: 'hostNetwork=true, hostPID=true, hostIPC=true'
  },
  {
    check: 'privileged',
    pass: plainPod({ containers: [{ name: 'a', securityContext: { privileged: false } }] }),
    fail: plainPod({ initContainers: [{ name: 'i', securityContext: { privileged: true } }], containers: [{ name: 'a', securityContext: { privileged: true } }] }),
    reason: 'privileged',
    detail: 'containers "i", "a" must not set securityContext.privileged=true'
  },
  {
    check: 'capabilities',
    pass: plainPod({ containers: [{ name: 'a', securityContext: { capabilities: { add: ['CHOWN', 'NET_BIND_SERVICE', 'KILL'] } } }] }),
    fail: plainPod({ containers: [{ name: 'a', securityContext: { capabilities: { add: ['SYS_ADMIN', 'NET_RAW', 'CHOWN'] } } }, { name: 'b', securityContext: { capabilities: { add: ['NET_RAW'] } } }] }),
    reason: 'non-default capabilities',
    detail: 'containers "a", "b" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add'
  },
  {
    check: 'hostPath volumes',
    pass: plainPod({ volumes: [{ name: 'v', emptyDir: {} }] }),
    fail: plainPod({ volumes: [{ name: 'v', hostPath: { path: '/' } }, { name: 'w', hostPath: { path: '/etc' } }] }),
    reason: 'hostPath volumes',
    detail: 'volumes "v", "w"'
  },
  {
    check: 'host ports',
    pass: plainPod({ containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 0 }] }] }),
    fail: plainPod({ containers: [{ name: 'a', ports: [{ containerPort: 80 }] }, { name: 'b', ports: [{ containerPort: 10, hostPort: 20 }] }, { name: 'c', ports: [{ containerPort: 1, hostPort: 10 }, { containerPort: 2, hostPort: 30 }] }] }),
    reason: 'hostPort',
    detail: 'containers "b", "c" use hostPorts 10, 20, 30'
  },
  {
    check: 'AppArmor',
    pass: plainPod({ securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }, { annotations: { [`${POD_SECURITY.appArmorContainerAnnotationPrefix}a`]: 'localhost/foo' } }),
    fail: plainPod({ securityContext: { appArmorProfile: { type: 'Unconfined' } } }, {
      annotations: { [`${POD_SECURITY.appArmorContainerAnnotationPrefix}e`]: 'unconfined', [`${POD_SECURITY.appArmorContainerAnnotationPrefix}b`]: 'runtime/default' }
    }),
    reason: 'forbidden AppArmor profiles',
    detail: `pod and annotation must not set AppArmor profile type to "Unconfined", "${POD_SECURITY.appArmorContainerAnnotationPrefix}e="unconfined""`
  },
  {
    check: 'SELinux',
    pass: plainPod({ securityContext: { seLinuxOptions: { type: 'container_t', level: 's0:c123,c456' } } }),
    fail: plainPod({
      securityContext: { seLinuxOptions: { type: 'foo', user: 'bar', role: 'baz' } },
      containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } }, { name: 'e', securityContext: { seLinuxOptions: { type: 'bar' } } }]
    }),
    reason: 'seLinuxOptions',
    detail: 'pod and container "e" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set'
  },
  {
    check: '/proc mount',
    pass: plainPod({ containers: [{ name: 'a', securityContext: { procMount: 'Default' } }] }),
    fail: plainPod({ containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }] }),
    reason: 'procMount',
    detail: 'container "a" must not set securityContext.procMount to "Unmasked"'
  },
  {
    check: 'seccomp',
    pass: plainPod({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }),
    fail: plainPod({ securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a', securityContext: { seccompProfile: { type: 'Unconfined' } } }] }),
    reason: 'seccompProfile',
    detail: 'pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined"'
  },
  {
    check: 'sysctls',
    pass: plainPod({ securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '4096 87380 6291456' }] } }),
    fail: plainPod({ securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.ip_local_port_range', value: '1 2' }, { name: 'vm.swappiness', value: '1' }] } }),
    reason: 'forbidden sysctls',
    detail: 'kernel.msgmax, vm.swappiness'
  }
]

describe('PodSecurity baseline checks', () => {
  for (const row of BASELINE_ROWS) {
    it(`${row.check}: passes the allowed values, refuses the others in the reference words`, () => {
      assert.deepEqual(violations(BASELINE, row.pass), [])
      assert.deepEqual(violations(BASELINE, row.fail), [{ reason: row.reason, detail: row.detail }])
      assert.deepEqual(violations({ level: 'privileged', version: LATEST }, row.fail), [])
    })
  }
})

const RESTRICTED_ROWS: Row[] = [
  {
    check: 'volume types',
    pass: restrictedPod({ volumes: ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'].map((t, i) => ({ name: `v${i}`, [t]: {} })) }),
    fail: restrictedPod({ volumes: [{ name: 'a', hostPath: { path: '/' } }, { name: 'b', nfs: { server: 's', path: '/' } }, { name: 'c', emptyDir: {} }, { name: 'd' }] }),
    reason: 'restricted volume types',
    detail: 'volumes "a", "b", "d" use restricted volume types "hostPath", "nfs", "unknown"'
  },
  {
    check: 'privilege escalation',
    pass: restrictedPod(),
    fail: restrictedPod({ containers: [restrictedContainer('a', { allowPrivilegeEscalation: true }), { ...restrictedContainer('b'), securityContext: { capabilities: { drop: ['ALL'] } } }] }),
    reason: 'allowPrivilegeEscalation != false',
    detail: 'containers "a", "b" must set securityContext.allowPrivilegeEscalation=false'
  },
  {
    check: 'running as non-root',
    pass: restrictedPod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } }, containers: [restrictedContainer('a', { runAsNonRoot: true })] }),
    fail: restrictedPod({ securityContext: { runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } }, containers: [restrictedContainer('a', { runAsNonRoot: false }), restrictedContainer('b', { runAsNonRoot: true })] }),
    reason: 'runAsNonRoot != true',
    detail: 'pod and container "a" must not set securityContext.runAsNonRoot=false'
  },
  {
    check: 'runAsUser',
    pass: restrictedPod({ containers: [restrictedContainer('a', { runAsUser: 1000 })] }),
    fail: restrictedPod({ securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } }, containers: [restrictedContainer('a', { runAsUser: 0 })] }),
    reason: 'runAsUser=0',
    detail: 'pod and container "a" must not set runAsUser=0'
  },
  {
    check: 'seccomp',
    pass: restrictedPod({ securityContext: { runAsNonRoot: true }, containers: [restrictedContainer('a', { seccompProfile: { type: 'Localhost', localhostProfile: 'x' } })] }),
    fail: restrictedPod({ securityContext: { runAsNonRoot: true }, containers: [restrictedContainer('a'), restrictedContainer('b', { seccompProfile: { type: 'RuntimeDefault' } }), restrictedContainer('c')] }),
    reason: 'seccompProfile',
    detail: 'pod or containers "a", "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'
  },
  {
    check: 'capabilities',
    pass: restrictedPod({ containers: [restrictedContainer('a', { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } })] }),
    fail: restrictedPod({ containers: [restrictedContainer('a', { capabilities: { drop: ['NET_RAW'], add: ['CHOWN', 'NET_BIND_SERVICE'] } }), { name: 'b', securityContext: { allowPrivilegeEscalation: false } }] }),
    reason: 'unrestricted capabilities',
    detail: 'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "CHOWN" in securityContext.capabilities.add'
  }
]

describe('PodSecurity restricted checks', () => {
  for (const row of RESTRICTED_ROWS) {
    it(`${row.check}: passes the allowed values, refuses the others in the reference words`, () => {
      assert.deepEqual(violations(RESTRICTED, row.pass), [])
      assert.deepEqual(violations(RESTRICTED, row.fail), [{ reason: row.reason, detail: row.detail }])
    })
  }

  it('holds restricted pods to baseline too, baseline reasons first', () => {
    const pod = restrictedPod({ hostNetwork: true, containers: [restrictedContainer('a', { privileged: true, runAsUser: 0 })] })
    assert.deepEqual(violations(RESTRICTED, pod).map(v => v.reason), ['host namespaces', 'privileged', 'runAsUser=0'])
  })

  it('words a plain pod\'s refusal as the reference server does', () => {
    assert.equal(violationDetails(violations(RESTRICTED, plainPod({}))),
      'allowPrivilegeEscalation != false (container "a" must set securityContext.allowPrivilegeEscalation=false), ' +
      'unrestricted capabilities (container "a" must set securityContext.capabilities.drop=["ALL"]), ' +
      'runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true), ' +
      'seccompProfile (pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")')
    assert.deepEqual(violations(BASELINE, plainPod({})), [])
  })

  it('lets Windows pods skip the Linux-only restricted checks from 1.25 on', () => {
    const windows = plainPod({ os: { name: 'windows' }, securityContext: { runAsNonRoot: true } })
    assert.deepEqual(violations(RESTRICTED, windows), [])
    assert.deepEqual(violations({ level: 'restricted', version: 25 }, windows), [])
    assert.deepEqual(violations({ level: 'restricted', version: 24 }, windows).map(v => v.reason), ['allowPrivilegeEscalation != false', 'unrestricted capabilities', 'seccompProfile'])
  })
})

describe('PodSecurity versions', () => {
  it('applies each check as of the version asked for', () => {
    const pod = plainPod({ securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'a', securityContext: { allowPrivilegeEscalation: false, runAsUser: 0 } }] })
    // Before 1.22 the restricted level had no capabilities check of its own; before 1.23 no runAsUser check.
    assert.deepEqual(violations({ level: 'restricted', version: 21 }, pod), [])
    assert.deepEqual(violations({ level: 'restricted', version: 22 }, pod).map(v => v.reason), ['unrestricted capabilities'])
    assert.deepEqual(violations({ level: 'restricted', version: 23 }, pod).map(v => v.reason), ['unrestricted capabilities', 'runAsUser=0'])
    // Before 1.8 privilege escalation was not checked.
    assert.deepEqual(violations({ level: 'restricted', version: 7 }, plainPod({ securityContext: { runAsNonRoot: true } })), [])
  })

  it('adds sysctls and SELinux types in the versions that allowed them', () => {
    const keepalive = plainPod({ securityContext: { sysctls: [{ name: 'net.ipv4.tcp_keepalive_time', value: '1' }] } })
    assert.deepEqual(violations({ level: 'baseline', version: 28 }, keepalive), [{ reason: 'forbidden sysctls', detail: 'net.ipv4.tcp_keepalive_time' }])
    assert.deepEqual(violations({ level: 'baseline', version: 29 }, keepalive), [])
    const engine = plainPod({ securityContext: { seLinuxOptions: { type: 'container_engine_t' } } })
    assert.equal(violations({ level: 'baseline', version: 30 }, engine)[0]?.detail, 'pod set forbidden securityContext.seLinuxOptions: type "container_engine_t"')
    assert.deepEqual(violations({ level: 'baseline', version: 31 }, engine), [])
    assert.deepEqual(violations({ level: 'baseline', version: 99 }, engine), [])
  })

  it('reads seccomp from the annotations before 1.19 and from the fields since', () => {
    const annotated = plainPod({ containers: [{ name: 'a' }] }, {
      annotations: { [POD_SECURITY.seccompPodAnnotation]: 'unconfined', [`${POD_SECURITY.seccompContainerAnnotationPrefix}a`]: 'runtime/default' }
    })
    assert.deepEqual(violations({ level: 'baseline', version: 18 }, annotated), [{ reason: 'seccompProfile', detail: `forbidden annotation ${POD_SECURITY.seccompPodAnnotation}="unconfined"` }])
    assert.deepEqual(violations({ level: 'baseline', version: 19 }, annotated), [])
    const unconfined = plainPod({ securityContext: { seccompProfile: { type: 'Unconfined' } } })
    assert.deepEqual(violations({ level: 'baseline', version: 18 }, unconfined), [])
  })
})
