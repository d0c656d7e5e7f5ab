// Namespace (core v1, cluster scope): Active until deleted, then Terminating until the namespace
// controller has emptied it and removed its finalizer through /finalize.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource } from './define.js'
import { objectSchema } from './meta.js'
import { FINALIZERS, LABELS } from './naming.js'
import { message } from './protobuf.js'

const schema = objectSchema('v1', 'Namespace', {
  spec: Type.Optional(Type.Object({
    finalizers: Type.Optional(Type.Array(Type.String(), { description: 'Must be empty before the namespace is removed from storage.' }))
  }, { additionalProperties: false, ...message('NamespaceSpec', { finalizers: 1 }) })),
  status: Type.Optional(Type.Object({
    phase: Type.Optional(Type.Union([Type.Literal('Active'), Type.Literal('Terminating')])),
    conditions: Type.Optional(Type.Array(Type.Object({
      type: Type.String(),
      status: Type.String(),
      lastTransitionTime: Type.Optional(Type.String()),
      reason: Type.Optional(Type.String()),
      message: Type.Optional(Type.String())
    }, { additionalProperties: false, ...message('NamespaceCondition', { type: 1, status: 2, lastTransitionTime: { number: 4, type: 'meta.v1.Time' }, reason: 5, message: 6 }) })))
  }, { additionalProperties: false, ...message('NamespaceStatus', { phase: 1, conditions: 2 }) }))
}, 'Namespace provides a scope for names.', { spec: 2, status: 3 })

type Namespace = { metadata?: { name?: string, labels?: Record<string, string> | null }, spec?: { finalizers?: string[] }, status?: { phase?: 'Active' | 'Terminating' } }

const labelWithName = (ns: Namespace): void => {
  if (ns.metadata === undefined || ns.metadata.name === undefined) return
  ns.metadata.labels = { ...(ns.metadata.labels ?? {}), [LABELS.namespaceName]: ns.metadata.name }
}

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  scope: 'Cluster',
  nameRule: 'DNSLabel',
  schema,
  generation: false,
  deleteReturns: 'Object',
  // No deletecollection: one request must not delete every namespace (as the reference server).
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: {
    status: statusSubresource(),
    finalize: {
      merge: (incoming, existing) => ({ ...existing, spec: { ...(existing.spec ?? {}), finalizers: incoming.spec?.finalizers ?? [] } }),
      verbs: ['update']
    }
  },
  strategy: {
    prepareForCreate (ns) {
      labelWithName(ns)
      ns.spec = { finalizers: [FINALIZERS.namespace] }
      ns.status = { phase: 'Active' }
    },
    prepareForUpdate (ns, old) {
      labelWithName(ns)
      ns.spec = old.spec
    },
    prepareForDelete (ns) {
      ns.status = { ...(ns.status ?? {}), phase: 'Terminating' }
    },
    pendingFinalizers: (ns) => ns.spec?.finalizers ?? []
  },
  columns: [
    { name: 'Status', type: 'string', description: 'The status of the namespace', value: (ns) => ns.status?.phase ?? '' }
  ],
  fieldSelectors: { 'status.phase': (ns) => ns.status?.phase },
  example: {
    metadata: { name: 'example' },
    status: { phase: 'Active', conditions: [{ type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' }] }
  }
})
