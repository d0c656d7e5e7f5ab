// A family of plugins (authenticators, authorizer modes, admission plugins, controllers) is a
// list of entries; the composition root registers each entry whose settings turn it on.
import type { FastifyInstance, FastifyPluginAsync, FastifyPluginCallback } from 'fastify'

export type AnyPlugin = FastifyPluginAsync<any> | FastifyPluginCallback<any>

export interface FamilyEntry<Settings> {
  /** The name the flags and the logs use. */
  name: string
  plugin: AnyPlugin
  /** The plugin's options from the server's settings; undefined leaves the entry out. */
  options?: (settings: Settings) => object | undefined
}

/** Registers the entries in list order, each with its options, skipping those its settings leave out. */
export async function registerFamily<Settings> (app: FastifyInstance, entries: Iterable<FamilyEntry<Settings>>, settings: Settings): Promise<void> {
  for (const entry of entries) {
    const options = entry.options === undefined ? {} : entry.options(settings)
    if (options !== undefined) await app.register(entry.plugin, options)
  }
}
