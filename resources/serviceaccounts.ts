// ServiceAccount (core v1): an identity for processes, with the secrets it may use.
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { keepZero, message } from './protobuf.js'

const ObjectReference = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  fieldPath: Type.Optional(Type.String())
}, message('ObjectReference', { kind: 1, namespace: 2, name: 3, uid: 4, apiVersion: 5, resourceVersion: 6, fieldPath: 7 }))

const schema = objectSchema('v1', 'ServiceAccount', {
  secrets: Type.Optional(Type.Array(ObjectReference, { description: 'Secrets in the same namespace pods running as this account may use.', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' })),
  imagePullSecrets: Type.Optional(Type.Array(Type.Object({ name: Type.Optional(Type.String()) }, message('LocalObjectReference', { name: 1 })), { description: 'Secrets for pulling images of pods that reference this account.' })),
  automountServiceAccountToken: Type.Optional(Type.Boolean({ description: 'Whether pods running as this account get a token mounted.' }))
}, 'ServiceAccount binds together a name understood by users, a principal authenticated by the API and a set of secrets.', { secrets: 2, imagePullSecrets: 3, automountServiceAccountToken: keepZero(4) })

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  shortNames: ['sa'],
  scope: 'Namespaced',
  schema,
  // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
  strategy: { allowCreateOnUpdate: true },
  columns: [
    { name: 'Secrets', type: 'integer', value: (sa) => (sa.secrets ?? []).length }
  ],
  example: {
    metadata: { name: 'build-robot' }
  }
})
