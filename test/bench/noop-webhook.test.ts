// The benchmark's no-op webhook process: ready line, then an allowing AdmissionReview answer
// for each call, verified against the CA it printed; stopped by the benchmark.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startJsonService } from '../../bench/process.js'
import { fetchJson } from '../../auth/https-client.js'

test('bench/noop-webhook.ts allows every review over verified HTTPS', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'noop-webhook-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const hook = await startJsonService<{ port: number, caBundle: string }>('bench/noop-webhook.ts', [dir])
  t.after(() => hook.stop())
  const res = await fetchJson(`https://127.0.0.1:${hook.info.port}/validate`, {
    method: 'POST',
    ca: Buffer.from(hook.info.caBundle, 'base64').toString(),
    body: { apiVersion: 'admission.svc.io/v1', kind: 'AdmissionReview', request: { uid: 'u-1' } }
  })
  assert.equal(res.status, 200)
  assert.deepEqual(res.body, { apiVersion: 'admission.svc.io/v1', kind: 'AdmissionReview', response: { uid: 'u-1', allowed: true } })
})
