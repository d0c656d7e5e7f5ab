// A family of plugins (authenticators, authorizer modes, admission plugins, controllers) is a
// list of entries in its own folder; the composition root (server/) registers each entry whose
// settings turn it on.
import type { FastifyPluginAsync, FastifyPluginCallback } from 'fastify'

export type AnyPlugin = FastifyPluginAsync<any> | FastifyPluginCallback<any>

export interface FamilyEntry<Settings> {
  /** The name the flags and the logs use. */
  name: string
  plugin: AnyPlugin
  /** The plugin's options from the server's settings; undefined leaves the entry out. */
  options?: (settings: Settings) => object | undefined
}
