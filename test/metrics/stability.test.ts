// The metric stability framework: HELP annotations and the deprecation lifecycle (shown for
// three releases after deprecation, then hidden, and shown again for one release only when
// --show-hidden-metrics-for-version names the previous release).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { annotatedHelp, checkShowHiddenFor, isHidden, CURRENT_RELEASE, type MetricDefinition } from '../../plugins/metrics/stability.js'
import { pluginApp } from '../helpers/plugin-app.js'
import requestInfo from '../../plugins/request-info.js'
import metrics from '../../plugins/metrics/index.js'
import { CounterFamily } from '../../plugins/metrics/cells.js'
import type { Metric } from 'prom-client'

const at = (minor: number) => ({ major: 1, minor })
const metric = (deprecatedVersion?: string): MetricDefinition => ({ name: 'x_total', help: 'Things.', stability: 'STABLE', deprecatedVersion })

test('HELP says the stability level and since when a metric is deprecated', () => {
  assert.equal(annotatedHelp({ name: 'a', help: 'Things.', stability: 'ALPHA' }), '[ALPHA] Things.')
  assert.equal(annotatedHelp(metric('1.30')), '[STABLE] (Deprecated since 1.30.0) Things.')
  assert.equal(annotatedHelp(metric('1.29.0')), '[STABLE] (Deprecated since 1.29.0) Things.')
})

test('a deprecated metric is hidden three releases after its deprecation', () => {
  assert.equal(isHidden(metric(), undefined, at(33)), false)
  assert.equal(isHidden(metric('1.33'), undefined, at(33)), false)
  assert.equal(isHidden(metric('1.31'), undefined, at(33)), false)
  assert.equal(isHidden(metric('1.30'), undefined, at(33)), true)
  // The previous release named: the metrics hidden in this release come back, older ones do not.
  assert.equal(isHidden(metric('1.30'), at(32), at(33)), false)
  assert.equal(isHidden(metric('1.29'), at(32), at(33)), true)
  assert.equal(isHidden(metric('0.99'), at(32), at(33)), true)
})

test('--show-hidden-metrics-for-version takes the previous release only', () => {
  assert.equal(checkShowHiddenFor(undefined), undefined)
  assert.deepEqual(checkShowHiddenFor(`${CURRENT_RELEASE.major}.${CURRENT_RELEASE.minor - 1}`), { major: 1, minor: CURRENT_RELEASE.minor - 1 })
  assert.throws(() => checkShowHiddenFor('1.31', at(33)), /must be omitted or have the value '1\.32'/)
  assert.throws(() => checkShowHiddenFor('1.33', at(33)), /only the previous minor version/)
  assert.throws(() => checkShowHiddenFor('latest', at(33)), /invalid version "latest"/)
})

test('a server refuses a --show-hidden-metrics-for-version other than the previous release', async (t) => {
  await assert.rejects(pluginApp(t, requestInfo, [metrics, { showHiddenMetricsForVersion: '1.20' }]), /--show-hidden-metrics-for-version must be omitted or have the value/)
})

test('a family registered in the server registry is scraped with its HELP, TYPE and samples', async (t) => {
  const app = await pluginApp(t, requestInfo, [metrics, { showHiddenMetricsForVersion: `1.${CURRENT_RELEASE.minor - 1}` }])
  const family = new CounterFamily('test_things_total', annotatedHelp(metric(`1.${CURRENT_RELEASE.minor - 1}`)), ['kind'])
  family.child('a').inc(2)
  app.metrics.registry.registerMetric(family as unknown as Metric)
  const body = (await app.inject({ method: 'GET', url: '/metrics' })).body
  assert.match(body, /^# HELP test_things_total \[STABLE\] \(Deprecated since 1\.32\.0\) Things\.$/m)
  assert.match(body, /^# TYPE test_things_total counter$/m)
  assert.match(body, /^test_things_total\{kind="a"\} 2$/m)
})
