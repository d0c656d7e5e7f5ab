// The admission plugins list is the one place a plugin's name, default and phases are stated:
// every entry adds itself under its name, the flags may name only listed plugins, and the
// reference's plugins this server lacks are refused when enabled rather than silently ignored.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { ADMISSION_PLUGINS, DEFAULT_ENABLED, NOT_IMPLEMENTED, checkPluginNames } from '../../admission/index.js'

describe('the admission plugins list', () => {
  it('names each plugin once, and every plugin the flags can enable adds itself under its entry\'s name, in list order', async (t) => {
    const names = ADMISSION_PLUGINS.map(p => p.name)
    assert.equal(new Set(names).size, names.length)
    const enable = ADMISSION_PLUGINS.filter(p => p.enabled === 'optional' && p.name !== 'AlwaysDeny' && p.name !== 'ImagePolicyWebhook' && p.name !== 'EventRateLimit').map(p => p.name)
    const { app } = await buildTestApp(t, { admission: { enable } })
    const expected = names.filter(n => !['AlwaysDeny', 'ImagePolicyWebhook', 'EventRateLimit'].includes(n))
    assert.deepEqual(app.admission.enabled(), expected)
  })

  it('turns on by default exactly the entries marked default', async (t) => {
    const { app } = await buildTestApp(t)
    const always = ADMISSION_PLUGINS.filter(p => p.enabled === 'always').map(p => p.name)
    assert.deepEqual([...app.admission.enabled()].sort(), [...DEFAULT_ENABLED, ...always].sort())
  })

  it('refuses to enable a plugin of the reference server that this server does not implement, and accepts disabling it', async (t) => {
    for (const name of NOT_IMPLEMENTED) {
      assert.throws(() => checkPluginNames({ enable: [name] }), new RegExp(`enable-admission-plugins plugin "${name}" is a plugin of the reference server that this server does not implement`))
      assert.doesNotThrow(() => checkPluginNames({ disable: [name] }))
    }
    await assert.rejects(buildTestApp(t, { admission: { enable: ['PodTopologyLabels'] } }), /does not implement/)
  })

  it('refuses names no plugin has, and the server-internal RBACEscalation entry', () => {
    assert.throws(() => checkPluginNames({ enable: ['NoSuchPlugin'] }), /enable-admission-plugins plugin "NoSuchPlugin" is unknown/)
    assert.throws(() => checkPluginNames({ disable: ['RBACEscalation'] }), /disable-admission-plugins plugin "RBACEscalation" is unknown/)
  })
})
