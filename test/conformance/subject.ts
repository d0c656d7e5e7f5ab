// What the conformance suite runs its behaviours on: one served version of a kind, its example
// in that version's form, and where its objects live.
import type { TestApp } from '../helpers/app.js'
import type { AnyObject, ConvertedVersion, KindExample, Resource } from '../../resources/define.js'

export interface Subject {
  /** The kind as defined (RESOURCES). */
  definition: Resource
  /** The kind as this version serves it (its group, version, kind, schema, columns, subresources). */
  served: Resource
  /** How this version converts the kind's objects, when it is another group's form of them. */
  conversion?: ConvertedVersion
  /** The namespace objects are made in; '' for cluster-scoped kinds. */
  namespace: string
  /** The example in this version's form without its status (what a user creates), apiVersion and kind set, under `name`. */
  object: AnyObject
  /** The example's status in this version's form: what the status behaviours write through /status. */
  status?: AnyObject
  name: string
  /** `/api/v1` or `/apis/<group>/<version>`. */
  groupVersionPath: string
  /** The collection URL (in `namespace` for namespaced kinds). */
  collection: string
  /** What the create leaves for later behaviours: the list's resourceVersion before it, the object made. */
  state: { listedBeforeCreate?: string, created?: AnyObject }
}

const DEFAULT_NAMESPACE = 'default'

/** Every version `api` serves of `definition`, in the order served; the main version first. */
export function servedVersions (api: TestApp, definition: Resource): Resource[] {
  const registry = api.app.resources
  const store = registry.find({ group: definition.group, resource: definition.plural })
  return registry.served().filter(v => registry.lookup(v.group, v.version, v.plural) === store)
}

/** The namespace a kind's objects are made in: the example's own, else `default`. */
export const namespaceOf = (definition: Resource, example: KindExample): string =>
  definition.namespaced ? (example.metadata.namespace ?? DEFAULT_NAMESPACE) : ''

/**
 * The subject for one served version. Versions after the first share the kind's objects, so
 * their objects are named apart (`<name>-<n>`).
 */
export function subjectOf (api: TestApp, definition: Resource, served: Resource, index: number): Subject {
  const example = definition.example!
  const name = index === 0 ? example.metadata.name : `${example.metadata.name}-${index + 1}`
  const conversion = api.app.resources.converted(served.group, served.version, served.plural)?.conversion
  const { apiVersion: _a, kind: _k, ...fields } = structuredClone(example) as AnyObject
  const namespace = namespaceOf(definition, example)
  const body = conversion === undefined ? fields : conversion.fromStored(fields)
  const { status, ...rest } = body
  const object = { apiVersion: served.apiVersion, kind: served.kind, ...rest, metadata: { ...rest.metadata, name } }
  if (namespace !== '') object.metadata.namespace = namespace
  const groupVersionPath = served.group === '' ? `/api/${served.version}` : `/apis/${served.group}/${served.version}`
  return {
    definition,
    served,
    conversion,
    namespace,
    object,
    status,
    name,
    groupVersionPath,
    collection: `${groupVersionPath}${namespace === '' ? '' : `/namespaces/${namespace}`}/${served.plural}`,
    state: {}
  }
}

/** The URL of the object `name` (default the subject's own), with a subresource when given. */
export const itemUrl = (s: Subject, name: string = s.name, subresource?: string): string =>
  `${s.collection}/${name}${subresource === undefined ? '' : `/${subresource}`}`

/** The subject's object under another name (the extra objects a behaviour makes). */
export function renamed (s: Subject, name: string): AnyObject {
  const named = s.definition.exampleNamed?.(name)
  if (named === undefined) return { ...structuredClone(s.object), metadata: { ...structuredClone(s.object.metadata), name } }
  // The kind's own renaming changes fields beside the name; the rest is the subject's.
  const { status: _s, ...fields } = structuredClone(named) as AnyObject
  return { ...structuredClone(s.object), ...fields, metadata: { ...structuredClone(s.object.metadata), ...fields.metadata, name } }
}
