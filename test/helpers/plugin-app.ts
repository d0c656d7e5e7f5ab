// A bare Fastify instance with only the plugins under test (each after the ones it declares it
// depends on), for a generic plugin tested through inject: no database, no rest of the server.
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'

// Options are the plugin's own; `any` lets one list hold plugins of different option types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PluginUnderTest = FastifyPluginAsync<any> | [FastifyPluginAsync<any>, object]

/** Registers `plugins` in order on a fresh instance and readies it; closed after the test. */
export async function pluginApp (t: { after (fn: () => unknown): void }, ...plugins: PluginUnderTest[]): Promise<FastifyInstance> {
  const app = Fastify()
  t.after(() => app.close())
  for (const p of plugins) {
    const [plugin, opts] = Array.isArray(p) ? p : [p, {}]
    await app.register(plugin, opts)
  }
  await app.ready()
  return app
}
