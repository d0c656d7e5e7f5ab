// Binding (core v1, create only, never stored): POST /api/v1/namespaces/{ns}/bindings binds the
// pod the Binding names, exactly as pods/binding does (the reference serves both by one
// BindingREST): admission sees a create of bindings, then the pod takes the node through
// pods/binding's rule (resources/pod-binding.ts).
import { objectSchema } from './meta.js'
import { ObjectReference } from './core-types.js'
import { defineResource } from './define.js'

const schema = objectSchema('v1', 'Binding', { target: ObjectReference },
  'Binding ties one object to another; for example, a pod is bound to a node by a scheduler.', { target: 2 })

const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'Binding',
  plural: 'bindings',
  singular: 'binding',
  scope: 'Namespaced',
  schema,
  verbs: ['create'],
  virtual: {
    async create (binding, ctx) {
      await ctx.changeParent({ group: '', version: 'v1', plural: 'pods', subresource: 'binding' }, binding)
      return success
    }
  }
})
