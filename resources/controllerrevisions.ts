// ControllerRevision (apps/v1): an immutable snapshot of a controller's state (a StatefulSet's or
// DaemonSet's template, as a patch) with its revision number, kept for rollbacks. Its data is
// any JSON object, stored as given.
import { Type } from '@sinclair/typebox'
import { defineResource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, Int64, objectSchema } from './meta.js'
import { immutable } from './core-types.js'
import { keepZero } from './protobuf.js'
import { nonNegative } from './workload-validation.js'

const schema = objectSchema('apps/v1', 'ControllerRevision', {
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { 'x-kubernetes-map-type': 'atomic', description: 'Data is the serialized representation of the state.' })),
  revision: Type.Optional(Int64({ default: 0, description: 'Revision indicates the revision of the state represented by Data.' }))
}, 'ControllerRevision implements an immutable snapshot of state data.', { data: { number: 2, type: 'runtime.RawExtension' }, revision: keepZero(3) })

type Revision = AnyObject

/** ValidateControllerRevision. */
function validateRevision (revision: Revision): FieldError[] {
  const errors: FieldError[] = []
  if (revision.data == null) errors.push({ type: 'Required', field: 'data', detail: 'data is mandatory' })
  errors.push(...nonNegative(revision.revision, 'revision'))
  return errors
}

/** The controller owning the revision as the reference prints it: `<kind>.<group>/<name>`, lower-cased kind. */
function controllerText (revision: Revision): string {
  const owner = ((revision.metadata?.ownerReferences ?? []) as AnyObject[]).find(o => o.controller === true)
  if (owner === undefined) return '<none>'
  const apiVersion = String(owner.apiVersion ?? '')
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : ''
  const kind = String(owner.kind ?? '')
  if (kind === '' && group === '') return String(owner.name ?? '')
  return `${(group === '' ? kind : `${kind}.${group}`).toLowerCase()}/${String(owner.name ?? '')}`
}

export default defineResource({
  group: 'apps',
  version: 'v1',
  kind: 'ControllerRevision',
  plural: 'controllerrevisions',
  singular: 'controllerrevision',
  scope: 'Namespaced',
  schema,
  strategy: {
    validate: validateRevision,
    validateUpdate: (revision, old) => immutable('data', revision.data, old.data)
  },
  columns: [
    { name: 'Controller', type: 'string', description: 'Controller of the object', value: controllerText },
    { name: 'Revision', type: 'string', description: 'Revision indicates the revision of the state represented by Data.', value: (r: Revision) => Number(r.revision ?? 0) },
    AGE_COLUMN
  ],
  example: {
    metadata: { name: 'web-5d9f8c7b6' },
    data: { spec: { template: { $patch: 'replace', spec: { containers: [{ name: 'web', image: 'registry.example/web:1.0' }] } } } },
    revision: 1
  }
})
