// The registry of served kinds (`fastify.resources`): the store contract's look-up by group and
// resource, and what the REST layer itself needs besides (registration, paths, served versions).
import type { AnyObject, ConvertedVersion, Resource, SubresourceDefinition, VersionLifecycle } from '../../resources/define.js'
import type { FieldError } from '../../resources/status.js'
import type { GroupResource, ResourceStores } from '../../storage/resource-store.js'
import type { GenericStore } from './store.js'

/** A kind served in another group version: the conversion, and the served kind as discovery lists it. */
export interface ConvertedServing { conversion: ConvertedVersion, served: Resource }

export interface ResourceRegistry extends ResourceStores {
  /** Registers a kind: its watch cache and its REST endpoints. */
  add (resource: Resource): GenericStore
  /**
   * Stops serving a kind registered at run time (a CustomResourceDefinition's, replaced or
   * gone): its endpoints, every served version of it, and its watch cache.
   */
  remove (gr: GroupResource): void
  /** Counts the changes to what is served: documents built from `served()` are rebuilt when it moves. */
  readonly generation: number
  /**
   * The kinds served over HTTP, one entry per served version (--runtime-config turns some off,
   * older versions on); discovery and OpenAPI list these.
   */
  served (): Resource[]
  /** The lifecycle of an older version served at `/apis/<group>/<version>/<plural>`, if that is one. */
  olderVersion (group: string, version: string, plural: string): VersionLifecycle | undefined
  /** The kind served at `/apis/<group>/<version>/<plural>` in another group's form, if that is one. */
  converted (group: string, version: string, plural: string): ConvertedServing | undefined
  /** The store serving `/apis/<group>/<version>/<plural>`. */
  lookup (group: string, version: string, plural: string): GenericStore | undefined
  /**
   * Adds checks to a registered kind's validation whose code lives above the kind's layer (a
   * CRD's CEL rules, compiled by machinery/cel): `check` sees the object and the errors the
   * kind's own validation found, and returns more.
   */
  addValidation (gr: GroupResource, check: (obj: AnyObject, found: readonly FieldError[]) => FieldError[]): void
  /** Serves a subresource of a registered kind whose behaviour lives outside its kind file (serviceaccounts/token). */
  addSubresource (gr: GroupResource, name: string, def: SubresourceDefinition): void
}

declare module 'fastify' {
  interface FastifyInstance {
    resources: ResourceRegistry
  }
}
