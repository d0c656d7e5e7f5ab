// --feature-gates: the four lifecycles (alpha off, beta on, GA locked with a warning, removed
// refused), the flag's format and messages as upstream's, --help, and the gates switching the
// server's real behaviour.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { runServerSync } from '../helpers/server.js'
import { FEATURE_GATES, featureGates, knownFeatures, parseFeatureGateFlag, type FeatureGateSpec } from '../../resources/feature-gates.js'
import { parseFlags } from '../../bin/flags.js'
import { DOCUMENTED_FLAGS, usage } from '../../bin/help.js'
import { GROUPS } from '../../resources/naming.js'
import { samples } from '../metrics/exposition.js'

test('defaults: alpha off, beta as the reference server has it, GA and deprecated locked', () => {
  const gates = featureGates()
  assert.equal(gates.enabled('WatchList'), true)
  assert.equal(gates.enabled('ConsistentListFromCache'), true)
  assert.equal(gates.enabled('StorageVersionHash'), true)
  assert.equal(gates.enabled('CoordinatedLeaderElection'), false, 'beta, off by default in 1.33')
  assert.equal(gates.enabled('RetryGenerateName'), true)
  assert.equal(gates.enabled('WatchFromStorageWithoutResourceVersion'), false)
  for (const [name, spec] of Object.entries(FEATURE_GATES) as Array<[string, FeatureGateSpec]>) {
    if (spec.stage === 'ALPHA') assert.equal(spec.default, false, `${name}: alpha gates are off by default`)
    if (spec.stage === 'GA') assert.equal(spec.default && spec.lockToDefault, true, `${name}: GA gates are on and locked`)
  }
  assert.deepEqual(gates.warnings, [])
})

test('the flag takes Name=true,Other=false, repeatable, with Go\'s booleans', () => {
  assert.deepEqual(parseFeatureGateFlag(['WatchList=false,StorageVersionHash=true', 'CoordinatedLeaderElection=T']),
    { WatchList: false, StorageVersionHash: true, CoordinatedLeaderElection: true })
  assert.throws(() => parseFeatureGateFlag(['WatchList']), /^Error: missing bool value for WatchList$/)
  assert.throws(() => parseFeatureGateFlag(['WatchList=yes']), /invalid value of WatchList=yes, err: strconv\.ParseBool: parsing "yes": invalid syntax/)
  const flags = parseFlags(['--feature-gates', 'WatchList=false', '--feature-gates=CoordinatedLeaderElection=true'], {})
  assert.deepEqual(flags.featureGates, { WatchList: false, CoordinatedLeaderElection: true })
})

test('unknown, removed and locked gates stop start-up in upstream\'s words; a GA gate set true warns', () => {
  assert.throws(() => parseFlags(['--feature-gates=NoSuchGate=true'], {}),
    /^Error: invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate$/)
  assert.throws(() => parseFlags(['--feature-gates=ServerSideApply=true'], {}),
    /unrecognized feature gate: ServerSideApply \(GA in v1\.22, since removed: its behaviour is always on\)/)
  assert.throws(() => parseFlags(['--feature-gates=RetryGenerateName=false'], {}),
    /invalid argument "RetryGenerateName=false" for "--feature-gates" flag: cannot set feature gate RetryGenerateName to false, feature is locked to true/)
  assert.throws(() => featureGates({ WatchFromStorageWithoutResourceVersion: true }), /feature is locked to false/)
  const gates = featureGates({ RetryGenerateName: true, WatchFromStorageWithoutResourceVersion: false })
  assert.deepEqual(gates.warnings, [
    'Setting GA feature gate RetryGenerateName=true. It will be removed in a future release.',
    'Setting deprecated feature gate WatchFromStorageWithoutResourceVersion=false. It will be removed in a future release.'
  ])
})

test('AllAlpha and AllBeta set a whole stage; a gate named explicitly keeps its own value', () => {
  const off = featureGates({ AllBeta: false, StorageVersionHash: true })
  assert.equal(off.enabled('WatchList'), false)
  assert.equal(off.enabled('ConsistentListFromCache'), false)
  assert.equal(off.enabled('StorageVersionHash'), true)
  assert.equal(off.enabled('RetryGenerateName'), true, 'GA gates are not beta')
})

test('--help lists the alpha and beta gates with stage and default, as upstream\'s KnownFeatures', () => {
  const known = knownFeatures()
  assert.ok(known.includes('AllAlpha=true|false (ALPHA - default=false)'))
  assert.ok(known.includes('AllBeta=true|false (BETA - default=false)'))
  assert.ok(known.includes('WatchList=true|false (BETA - default=true)'))
  assert.ok(known.includes('CoordinatedLeaderElection=true|false (BETA - default=false)'))
  assert.equal(known.some(k => k.startsWith('RetryGenerateName=')), false, 'GA gates are not listed')
  assert.deepEqual(known, [...known].sort())
  const text = usage()
  assert.match(text, /--feature-gates colonSeparatedMultimapStringString\n\s+A set of key=value pairs that describe feature gates for alpha\/experimental features\. Options are:\n\s+AllAlpha=true\|false \(ALPHA - default=false\)/)
  // Every flag the parser takes is documented, and nothing else.
  const parsed = DOCUMENTED_FLAGS.filter(name => {
    try { parseFlags([`--${name}=x`], {}) } catch (err) { return !/unknown flag/.test((err as Error).message) }
    return true
  })
  assert.deepEqual(parsed, DOCUMENTED_FLAGS)
  assert.throws(() => parseFlags(['--no-such-flag=1'], {}), /unknown flag: --no-such-flag/)
})

test('the server prints --help with the gates and exits 0', () => {
  const run = runServerSync(['--help'])
  assert.equal(run.status, 0, run.stderr)
  assert.match(run.stdout, /WatchList=true\|false \(BETA - default=true\)/)
  const bad = runServerSync(['--feature-gates=Nope=true'])
  assert.equal(bad.status, 2)
  assert.match(bad.stderr, /error: invalid argument "Nope=true" for "--feature-gates" flag: unrecognized feature gate: Nope/)
})

test('WatchList off: a watch asking for sendInitialEvents is refused', async (t) => {
  const url = '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1'
  const off = await buildTestApp(t, { featureGates: { WatchList: false } })
  const refused = await off.request({ method: 'GET', url })
  assert.equal(refused.statusCode, 422, refused.body)
  assert.match(refused.json().message, /sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled/)
  const on = await buildTestApp(t)
  const served = await on.request({ method: 'GET', url })
  assert.equal(served.statusCode, 200, served.body)
  assert.match(served.body, /"k8s.io\/initial-events-end":"true"/)
})

test('StorageVersionHash: discovery lists the hash of the stored version; off, it does not', async (t) => {
  const on = await buildTestApp(t)
  const core = (await on.request({ method: 'GET', url: '/api/v1' })).json().resources
  const pods = core.find((r: { name: string }) => r.name === 'pods')
  // The reference server's hash of "/v1/Pod": clients compare it across servers.
  assert.equal(pods.storageVersionHash, 'xPOwRZ+Yhw8=')
  assert.equal(core.find((r: { name: string }) => r.name === 'pods/status').storageVersionHash, undefined)
  const leases = (await on.request({ method: 'GET', url: `/apis/${GROUPS.coordination}/v1` })).json().resources
  assert.match(leases.find((r: { name: string }) => r.name === 'leases').storageVersionHash, /^[A-Za-z0-9+/]{11}=$/)
  const off = await buildTestApp(t, { featureGates: { StorageVersionHash: false } })
  const plain = (await off.request({ method: 'GET', url: '/api/v1' })).json().resources
  assert.equal(plain.find((r: { name: string }) => r.name === 'pods').storageVersionHash, undefined)
})

test('CoordinatedLeaderElection: off, a new Lease loses strategy and preferredHolder; on, it keeps them', async (t) => {
  const lease = { apiVersion: `${GROUPS.coordination}/v1`, kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' } }
  const url = `/apis/${GROUPS.coordination}/v1/namespaces/default/leases`
  const off = await buildTestApp(t)
  const dropped = await off.request({ method: 'POST', url, payload: lease })
  assert.equal(dropped.statusCode, 201, dropped.body)
  assert.equal(dropped.json().spec.strategy, undefined)
  assert.equal(dropped.json().spec.preferredHolder, undefined)
  const on = await buildTestApp(t, { featureGates: { CoordinatedLeaderElection: true } })
  const kept = await on.request({ method: 'POST', url, payload: lease })
  assert.equal(kept.statusCode, 201, kept.body)
  assert.equal(kept.json().spec.strategy, 'OldestEmulationVersion')
  assert.equal(kept.json().spec.preferredHolder, 'b')
})

test('ConsistentListFromCache: off, a list without resourceVersion reads the database', async (t) => {
  const listReads = async (request: (o: { method: 'GET', url: string }) => Promise<{ body: string }>): Promise<number> => {
    const text = (await request({ method: 'GET', url: '/metrics' })).body
    return samples(text).filter(s => s.name === 'apiserver_storage_db_request_duration_seconds_count' && s.labels.operation?.startsWith('list') === true)
      .reduce((sum, s) => sum + s.value, 0)
  }
  for (const [gate, expectRead] of [[true, false], [false, true]] as const) {
    const { request } = await buildTestApp(t, { featureGates: { ConsistentListFromCache: gate } })
    const before = await listReads(request)
    const list = await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps' })
    assert.equal(list.statusCode, 200, list.body)
    const after = await listReads(request)
    assert.equal(after > before, expectRead, `ConsistentListFromCache=${String(gate)}: ${before} -> ${after}`)
  }
})

test('a server refuses a locked gate set against its lock', async (t) => {
  await assert.rejects(buildTestApp(t, { featureGates: { ServiceAccountTokenJTI: false } }), /cannot set feature gate ServiceAccountTokenJTI to false, feature is locked to true/)
})
