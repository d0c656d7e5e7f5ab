import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { startCompactor } from '../../storage/compactor.js'
import { configMap, eventually, key, testDatabase } from './fixtures.js'

describe('compactor', () => {
  it('compacts up to the revision that was current one interval earlier', async (t) => {
    const s = await (await testDatabase(t)).open()
    for (let i = 0; i < 3; i++) await s.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    const compactor = startCompactor(s, { intervalMs: 100 })
    t.after(() => compactor.stop())
    // The first tick only notes revision 3; a later one compacts to it.
    await eventually(async () => await s.compactedRevision() === 3, 5000, 'compaction to 3')
    await s.write({ type: 'create', key: key('ns', 'late'), value: configMap('ns', 'late') })
    await eventually(async () => await s.compactedRevision() === 4, 5000, 'compaction to 4')
    compactor.stop()
    await s.write({ type: 'create', key: key('ns', 'after-stop'), value: configMap('ns', 'after-stop') })
    await new Promise(resolve => setTimeout(resolve, 300))
    assert.equal(await s.compactedRevision(), 4)
  })
})
