import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../../resources/define.js'
import { ApiError } from '../../resources/status.js'
import type { GroupResource } from '../../storage/resource-store.js'

/**
 * An object as authenticators see it: from the kind's watch cache, or, when the cache has not
 * seen it yet (just created), from storage; undefined when it does not exist.
 */
export async function readObject (fastify: FastifyInstance, gr: GroupResource, namespace: string, name: string): Promise<AnyObject | undefined> {
  const store = fastify.resources.find(gr)
  if (store === undefined) return undefined
  const cached = store.cachedObject(namespace, name)
  if (cached !== undefined) return cached
  try {
    return JSON.parse((await store.get(namespace, name)).json) as AnyObject
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined
    throw err
  }
}
