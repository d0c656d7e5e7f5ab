// Every HELP of /metrics carries its stability level, but for the process and Node.js runtime
// metrics prom-client collects: those stand where the reference's process and Go collectors
// stand, registered raw (legacyregistry.RawMustRegister), outside the stability framework, so
// their HELP carries none there either; the process start time is the reference's own ALPHA
// metric. The metrics guide says which they are.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { buildTestApp } from '../helpers/app.js'

const RUNTIME = /^(process|nodejs)_(?!start_time_seconds$)/

test('every HELP starts with its stability level but the runtime collectors\', which the guide names', async (t) => {
  const { request } = await buildTestApp(t)
  const res = await request({ method: 'GET', url: '/metrics' })
  assert.equal(res.statusCode, 200)
  const helps = [...res.body.matchAll(/^# HELP (\S+) (.*)$/gm)].map(m => ({ name: m[1]!, help: m[2]! }))
  assert.ok(helps.some(h => RUNTIME.test(h.name)) && helps.some(h => !RUNTIME.test(h.name)))
  for (const { name, help } of helps) {
    if (RUNTIME.test(name)) assert.doesNotMatch(help, /^\[(ALPHA|BETA|STABLE)\]/, name)
    // The reference's timing histograms put their own prefix first: `EXPERIMENTAL: [ALPHA] ...`.
    else assert.match(help, /^(EXPERIMENTAL: )?\[(ALPHA|BETA|STABLE)\] /, name)
  }
  assert.match(res.body, /^# HELP process_start_time_seconds \[ALPHA\] Start time of the process since unix epoch in seconds\.$/m)
  assert.match(res.body, /^process_start_time_seconds \d{10}$/m)
  const guide = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8')
  assert.match(guide, /`process_\*` and `nodejs_\*`[\s\S]{0,120}?no stability level/)
})
