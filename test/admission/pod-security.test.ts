// PodSecurity admission through the API: namespace labels choose the level and version per
// mode; enforce refuses (403), warn answers with Warning headers, audit annotates the audit
// log; pod updates that change nothing the checks read pass; invalid labels are refused; a
// stricter enforce level warns about existing pods; the configuration file's defaults and
// exemptions apply.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LightMyRequestResponse } from 'fastify'
import { assertInvalid, suiteApp } from '../resources/suite.js'
import { buildTestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { parsePolicy } from '../../plugins/audit/policy.js'
import { GROUPS, POD_SECURITY } from '../../resources/naming.js'

type AnyObject = Record<string, any>

const label = (name: string): string => `${POD_SECURITY.labelPrefix}${name}`
const pods = (ns: string): string => `/api/v1/namespaces/${ns}/pods`

/** What `kubectl run nginx --image=nginx` sends. */
const runPod = (name: string, extra: AnyObject = {}): AnyObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name, image: 'nginx', ...extra }] }
})
const privilegedPod = (name: string): AnyObject => runPod(name, { securityContext: { privileged: true } })
const restrictedPod = (name: string): AnyObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name, image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }]
  }
})

const RUN_REFUSAL = (name: string, lv = 'restricted:latest'): string =>
  `pods "${name}" is forbidden: violates PodSecurity "${lv}": ` +
  `allowPrivilegeEscalation != false (container "${name}" must set securityContext.allowPrivilegeEscalation=false), ` +
  `unrestricted capabilities (container "${name}" must set securityContext.capabilities.drop=["ALL"]), ` +
  `runAsNonRoot != true (pod or container "${name}" must set securityContext.runAsNonRoot=true), ` +
  `seccompProfile (pod or container "${name}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`

/** The Warning headers' messages. */
function warnings (res: LightMyRequestResponse): string[] {
  const raw = res.headers.warning
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)]
  return values.map(v => {
    assert.match(v, /^299 - "/)
    return JSON.parse(Buffer.from(v.slice('299 - '.length), 'latin1').toString('utf8')) as string
  })
}

const AUDIT_POLICY = parsePolicy({ apiVersion: `${GROUPS.audit}/v1`, kind: 'Policy', rules: [{ level: 'Metadata', resources: [{ group: '', resources: ['pods'] }] }] })
const auditDir = mkdtempSync(join(tmpdir(), 'pod-security-audit-'))
const auditPath = join(auditDir, 'audit.log')

describe('PodSecurity admission', () => {
  const app = suiteApp({ audit: { policy: AUDIT_POLICY, path: auditPath } })
  const request = (o: Parameters<ReturnType<typeof app>['request']>[0]): Promise<LightMyRequestResponse> => app().request(o)
  const namespace = async (name: string, labels: Record<string, string>): Promise<LightMyRequestResponse> => {
    const res = await request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name, labels } } })
    assert.equal(res.statusCode, 201, res.body)
    return res
  }
  const setLabels = (name: string, labels: Record<string, string | null>): Promise<LightMyRequestResponse> =>
    request({ method: 'PATCH', url: `/api/v1/namespaces/${name}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ metadata: { labels } }) })
  const auditEvents = (): AnyObject[] => existsSync(auditPath) ? readFileSync(auditPath, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as AnyObject) : []
  const audited = (res: LightMyRequestResponse): Promise<AnyObject> => eventually(() => {
    const found = auditEvents().find(e => e.stage === 'ResponseComplete' && e.auditID === res.headers['audit-id'])
    assert.ok(found, `no audit event for ${res.headers['audit-id'] as string}`)
    return found
  })

  it('enforce refuses a kubectl-run pod with the reference server\'s message, and admits a compliant one', async () => {
    await namespace('enforced', { [label('enforce')]: 'restricted' })
    const refused = await request({ method: 'POST', url: pods('enforced'), payload: runPod('nginx') })
    assert.equal(refused.statusCode, 403, refused.body)
    const status = refused.json()
    assert.equal(status.reason, 'Forbidden')
    assert.equal(status.message, RUN_REFUSAL('nginx'))
    assert.deepEqual(status.details, { name: 'nginx', kind: 'pods' })
    assert.deepEqual(warnings(refused), [])

    const privileged = await request({ method: 'POST', url: pods('enforced'), payload: { ...restrictedPod('priv'), spec: { ...restrictedPod('priv').spec, hostNetwork: true } } })
    assert.equal(privileged.statusCode, 403)
    assert.equal(privileged.json().message, 'pods "priv" is forbidden: violates PodSecurity "restricted:latest": host namespaces (hostNetwork=true)')

    const fine = await request({ method: 'POST', url: pods('enforced'), payload: restrictedPod('fine') })
    assert.equal(fine.statusCode, 201, fine.body)
    assert.deepEqual(warnings(fine), [])
    // A dry run is judged the same way.
    const dry = await request({ method: 'POST', url: `${pods('enforced')}?dryRun=All`, payload: runPod('dry') })
    assert.equal(dry.statusCode, 403)

    const metrics = (await request({ method: 'GET', url: '/metrics' })).body
    const evaluations = (decision: string): number => Number(new RegExp(
      `^pod_security_evaluations_total\\{decision="${decision}",policy_level="restricted",policy_version="latest",mode="enforce",request_operation="create",resource="pod",subresource=""\\} (\\d+)$`, 'm'
    ).exec(metrics)?.[1])
    assert.equal(evaluations('deny'), 3, metrics)
    assert.equal(evaluations('allow'), 1, metrics)
  })

  it('records the enforced policy and the audit level\'s violations in the audit log, refused or not', async () => {
    await namespace('audited', { [label('enforce')]: 'baseline', [label('audit')]: 'restricted', [label('audit-version')]: 'v1.30' })
    const created = await request({ method: 'POST', url: pods('audited'), payload: runPod('web') })
    assert.equal(created.statusCode, 201, created.body)
    // The enforce level's warning default: warn follows an explicit enforce level (baseline), which the pod passes.
    assert.deepEqual(warnings(created), [])
    const event = await audited(created)
    assert.equal(event.annotations[label('enforce-policy')], 'baseline:latest')
    assert.equal(event.annotations[label('audit-violations')],
      'would violate PodSecurity "restricted:v1.30": allowPrivilegeEscalation != false (container "web" must set securityContext.allowPrivilegeEscalation=false), ' +
      'unrestricted capabilities (container "web" must set securityContext.capabilities.drop=["ALL"]), ' +
      'runAsNonRoot != true (pod or container "web" must set securityContext.runAsNonRoot=true), ' +
      'seccompProfile (pod or container "web" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")')

    const refused = await request({ method: 'POST', url: pods('audited'), payload: privilegedPod('root') })
    assert.equal(refused.statusCode, 403)
    const refusedEvent = await audited(refused)
    assert.equal(refusedEvent.responseStatus.code, 403)
    assert.equal(refusedEvent.annotations[label('enforce-policy')], 'baseline:latest')
    assert.match(refusedEvent.annotations[label('audit-violations')], /^would violate PodSecurity "restricted:v1\.30": privileged \(container "root" must not set securityContext\.privileged=true\), allowPrivilegeEscalation != false/)

    // A namespace without labels is privileged in every mode: said once, nothing evaluated.
    const plain = await request({ method: 'POST', url: pods('default'), payload: privilegedPod('anything') })
    assert.equal(plain.statusCode, 201, plain.body)
    assert.deepEqual((await audited(plain)).annotations, { [label('enforce-policy')]: 'privileged:latest' })
  })

  it('warn admits the pod with a Warning header at the warn level and version', async () => {
    await namespace('warned', { [label('warn')]: 'baseline', [label('warn-version')]: 'v1.30' })
    const res = await request({ method: 'POST', url: pods('warned'), payload: privilegedPod('loud') })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(warnings(res), ['would violate PodSecurity "baseline:v1.30": privileged (container "loud" must not set securityContext.privileged=true)'])
    const quiet = await request({ method: 'POST', url: pods('warned'), payload: runPod('quiet') })
    assert.deepEqual(warnings(quiet), [])
  })

  it('takes the checks of the version the labels name', async () => {
    // runAsUser=0 is refused from v1.23 on; capabilities must be dropped from v1.22 on.
    await namespace('old-rules', { [label('enforce')]: 'restricted', [label('enforce-version')]: 'v1.21' })
    const pod = restrictedPod('root-user')
    pod.spec.containers[0].securityContext = { allowPrivilegeEscalation: false, runAsUser: 0 }
    const res = await request({ method: 'POST', url: pods('old-rules'), payload: pod })
    assert.equal(res.statusCode, 201, res.body)
    // Warn followed the explicit enforce level and version: nothing to say.
    assert.deepEqual(warnings(res), [])
    const relabelled = await setLabels('old-rules', { [label('enforce-version')]: 'v1.23' })
    assert.equal(relabelled.statusCode, 200, relabelled.body)
    assert.deepEqual(warnings(relabelled), [
      'existing pods in namespace "old-rules" violate the new PodSecurity enforce level "restricted:v1.23"',
      'root-user: unrestricted capabilities, runAsUser=0'
    ])
    const again = await request({ method: 'POST', url: pods('old-rules'), payload: { ...pod, metadata: { name: 'root-user-2' } } })
    assert.equal(again.statusCode, 403)
    assert.match(again.json().message, /violates PodSecurity "restricted:v1\.23": unrestricted capabilities \(container "root-user" must set securityContext\.capabilities\.drop=\["ALL"\]\), runAsUser=0 \(container "root-user" must not set runAsUser=0\)$/)
  })

  it('refuses namespace labels that do not parse, on create and when an update changes them', async () => {
    const bad = await request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'bad-labels', labels: { [label('enforce')]: 'strict', [label('warn-version')]: 'v2.0' } } } })
    assertInvalid(bad, `metadata.labels[${label('enforce')}]`, 'FieldValueInvalid', 'Invalid value: "strict": must be one of privileged, baseline, restricted')
    assert.equal(bad.json().message,
      `Namespace "bad-labels" is invalid: [metadata.labels[${label('enforce')}]: Invalid value: "strict": must be one of privileged, baseline, restricted, ` +
      `metadata.labels[${label('warn-version')}]: Invalid value: "v2.0": must be "latest" or "v1.x"]`)
    await namespace('relabelled', {})
    const update = await setLabels('relabelled', { [label('audit-version')]: 'v1.05' })
    assertInvalid(update, `metadata.labels[${label('audit-version')}]`, 'FieldValueInvalid', 'must be "latest" or "v1.x"')
    assert.equal((await setLabels('relabelled', { [label('audit-version')]: 'v1.5' })).statusCode, 200)
  })

  it('warns, when an enforce level is set or tightened, about the existing pods it would refuse', async () => {
    await namespace('tightened', {})
    for (const pod of [privilegedPod('priv'), runPod('plain-b'), runPod('plain-a'), restrictedPod('good')]) {
      assert.equal((await request({ method: 'POST', url: pods('tightened'), payload: pod })).statusCode, 201)
    }
    const baseline = await setLabels('tightened', { [label('enforce')]: 'baseline' })
    assert.equal(baseline.statusCode, 200, baseline.body)
    assert.deepEqual(warnings(baseline), ['existing pods in namespace "tightened" violate the new PodSecurity enforce level "baseline:latest"', 'priv: privileged'])
    const restricted = await setLabels('tightened', { [label('enforce')]: 'restricted' })
    assert.deepEqual(warnings(restricted), [
      'existing pods in namespace "tightened" violate the new PodSecurity enforce level "restricted:latest"',
      'plain-a (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
      'priv: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile'
    ])
    // Loosening, or changing labels other than enforce, says nothing.
    assert.deepEqual(warnings(await setLabels('tightened', { [label('enforce')]: 'baseline' })), [])
    assert.deepEqual(warnings(await setLabels('tightened', { team: 'a' })), [])
    assert.deepEqual(warnings(await setLabels('tightened', { [label('enforce')]: 'privileged' })), [])
  })

  it('judges pod updates only when they change images or containers', async () => {
    await namespace('updates', {})
    assert.equal((await request({ method: 'POST', url: pods('updates'), payload: runPod('app') })).statusCode, 201)
    assert.equal((await setLabels('updates', { [label('enforce')]: 'restricted' })).statusCode, 200)
    const relabel = await request({ method: 'PATCH', url: `${pods('updates')}/app`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ metadata: { labels: { tier: 'web' } } }) })
    assert.equal(relabel.statusCode, 200, relabel.body)
    assert.deepEqual(warnings(relabel), [])
    const image = await request({ method: 'PATCH', url: `${pods('updates')}/app`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, payload: JSON.stringify({ spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } }) })
    assert.equal(image.statusCode, 403, image.body)
    assert.equal(image.json().message, RUN_REFUSAL('app'))
    const status = await request({ method: 'PATCH', url: `${pods('updates')}/app/status`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ status: { phase: 'Running' } }) })
    assert.equal(status.statusCode, 200, status.body)
  })
})

describe('PodSecurity configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pod-security-config-'))
  const configFile = (configuration: AnyObject): string => {
    const path = join(dir, `admission-${Math.random().toString(36).slice(2)}.yaml`)
    writeFileSync(path, JSON.stringify({ apiVersion: `${GROUPS.apiserverConfig}/v1`, kind: 'AdmissionConfiguration', plugins: [{ name: 'PodSecurity', configuration }] }))
    return path
  }

  it('applies the defaults to unlabelled namespaces and lets exempt users, namespaces and runtime classes through', async (t) => {
    const { request } = await buildTestApp(t, {
      admission: {
        configFile: configFile({
          apiVersion: POD_SECURITY.configurationApiVersions[0],
          kind: 'PodSecurityConfiguration',
          defaults: { enforce: 'baseline', 'enforce-version': 'v1.30', warn: 'restricted' },
          exemptions: { usernames: ['bob'], namespaces: ['exempt'], runtimeClasses: ['kata'] }
        })
      }
    })
    const refused = await request({ method: 'POST', url: pods('default'), payload: privilegedPod('priv') })
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().message, 'pods "priv" is forbidden: violates PodSecurity "baseline:v1.30": privileged (container "priv" must not set securityContext.privileged=true)')
    const warned = await request({ method: 'POST', url: pods('default'), payload: runPod('web') })
    assert.equal(warned.statusCode, 201, warned.body)
    assert.match(warnings(warned)[0] ?? '', /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/)

    const asBob = await request({ method: 'POST', url: pods('default'), payload: privilegedPod('bobs'), as: 'bob' })
    assert.equal(asBob.statusCode, 201, asBob.body)
    // The RuntimeClass plugin admits only pods naming a class that exists.
    assert.equal((await request({ method: 'POST', url: '/apis/node.svc.io/v1/runtimeclasses', payload: { metadata: { name: 'kata' }, handler: 'kata' } })).statusCode, 201)
    const kata = privilegedPod('kata')
    kata.spec.runtimeClassName = 'kata'
    assert.equal((await request({ method: 'POST', url: pods('default'), payload: kata })).statusCode, 201)

    const exempt = await request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'exempt', labels: { [label('enforce')]: 'restricted', [label('audit')]: 'privileged' } } } })
    assert.equal(exempt.statusCode, 201, exempt.body)
    assert.deepEqual(warnings(exempt), ['namespace "exempt" is exempt from Pod Security, and the policy (enforce=restricted:v1.30) will be ignored'])
    assert.equal((await request({ method: 'POST', url: pods('exempt'), payload: privilegedPod('anything') })).statusCode, 201)
    // Labels may still loosen the defaults.
    await request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'loose', labels: { [label('enforce')]: 'privileged', [label('warn')]: 'privileged' } } } })
    const loose = await request({ method: 'POST', url: pods('loose'), payload: privilegedPod('free') })
    assert.equal(loose.statusCode, 201, loose.body)
    assert.deepEqual(warnings(loose), [])
  })

  it('keeps labels that were invalid before from blocking other changes, and enforces restricted under an unparsable enforce label', async (t) => {
    // Labels written while the plugin was off.
    const without = await buildTestApp(t, { admission: { disable: ['PodSecurity'] } })
    const legacy = await without.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'legacy', labels: { [label('enforce')]: 'strict' } } } })
    assert.equal(legacy.statusCode, 201, legacy.body)
    const { request } = await buildTestApp(t, { databaseUrl: without.databaseUrl })
    const other = await request({ method: 'PATCH', url: '/api/v1/namespaces/legacy', headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ metadata: { labels: { team: 'a' } } }) })
    assert.equal(other.statusCode, 200, other.body)
    const worse = await request({ method: 'PATCH', url: '/api/v1/namespaces/legacy', headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ metadata: { labels: { [label('enforce')]: 'stricter' } } }) })
    assert.equal(worse.statusCode, 422, worse.body)
    const pod = await request({ method: 'POST', url: pods('legacy'), payload: runPod('web') })
    assert.equal(pod.statusCode, 403, pod.body)
    assert.equal(pod.json().message, RUN_REFUSAL('web'))
  })

  it('stops start-up on a configuration that does not validate', async (t) => {
    await assert.rejects(buildTestApp(t, {
      admission: {
        configFile: configFile({
          apiVersion: 'pod-security.admission.config.k8s.io/v1',
          kind: 'PodSecurityConfiguration',
          defaults: { enforce: 'strict' },
          exemptions: { usernames: ['', 'bob', 'bob'], namespaces: ['Not_A_Name'] }
        })
      }
    }), (err: Error) => {
      assert.equal(err.message, '--admission-control-config-file: PodSecurity invalid: [defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted, ' +
        'exemptions.namespaces[0]: Invalid value: "Not_A_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), ' +
        'exemptions.usernames[0]: Invalid value: "": username must not be empty, exemptions.usernames[2]: Duplicate value: "bob"]')
      return true
    })
    await assert.rejects(buildTestApp(t, { admission: { configFile: configFile({ apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', default: {} }) } }),
      /PodSecurity configuration: unknown field "default"/)
  })
})
