// Webhook warnings: unprintable ones dropped; past 4096 characters in total long ones are cut to
// 256 and further ones dropped.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { addWarnings } from '../../../admission/webhooks/warnings.js'

describe('webhook warnings', () => {
  it('keeps printable warnings as they are while the total stays under 4096 characters', () => {
    const out: string[] = []
    addWarnings(out, ['first', 'x'.repeat(300), 'bad\nline', ''])
    assert.deepEqual(out, ['first', 'x'.repeat(300)])
  })
  it('cuts long warnings to 256 characters once the total passes 4096, then drops what still does not fit', () => {
    const out: string[] = []
    addWarnings(out, Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(1000, 'y')))
    assert.ok(out.every(w => w.length <= 256), 'every warning cut')
    assert.ok(out.reduce((n, w) => n + w.length, 0) <= 4096)
    assert.equal(out.length, 16)
    assert.ok(out[0]!.startsWith('0y'))
  })
})
