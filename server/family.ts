// Registers a family's entries (resources/plugin-family.ts) in list order.
import type { FastifyInstance } from 'fastify'
import type { FamilyEntry } from '../resources/plugin-family.js'

/** Registers the entries in list order, each with its options, skipping those its settings leave out. */
export async function registerFamily<Settings> (app: FastifyInstance, entries: Iterable<FamilyEntry<Settings>>, settings: Settings): Promise<void> {
  for (const entry of entries) {
    const options = entry.options === undefined ? {} : entry.options(settings)
    if (options !== undefined) await app.register(entry.plugin, options)
  }
}
