// IngressClass (networking.svc.io/v1, cluster scope): which controller implements the Ingresses
// naming it, with an optional reference to the controller's own parameters. The class annotated
// `ingressclass.svc.io/is-default-class: "true"` is given to Ingresses that name none
// (the DefaultIngressClass admission plugin).
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { validateDomainPrefixedPath, validateTypedReference } from './ingress-rules.js'
import { dnsLabelProblems, invalidEach } from './validation.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional
const MAX_CONTROLLER_LENGTH = 250
const SCOPES = ['Cluster', 'Namespace']

const schema = objectSchema(`${GROUPS.networking}/v1`, 'IngressClass', {
  spec: opt(Type.Object({
    controller: opt(Type.String({ description: 'The controller that implements this class: a domain-prefixed path such as "example.com/ingress-controller". Immutable.' })),
    parameters: opt(Type.Object({
      apiGroup: opt(Type.String({ description: 'The group of the referenced resource; the core group when unset.' })),
      kind: Type.String({ description: 'The kind of the referenced resource.' }),
      name: Type.String({ description: 'The name of the referenced resource.' }),
      scope: opt(Type.String({ description: 'Cluster (default) or Namespace.' })),
      namespace: opt(Type.String({ description: 'The namespace of the referenced resource; required when scope is Namespace.' }))
    }, { additionalProperties: false, description: 'A link to a resource holding the controller\'s parameters for this class.', ...message('IngressClassParametersReference', {
      apiGroup: keepZero(1),
      kind: keepZero(2),
      name: keepZero(3),
      scope: keepZero(4),
      namespace: keepZero(5)
    }) }))
  }, { additionalProperties: false, description: 'IngressClassSpec provides information about the class of an Ingress.', ...message('IngressClassSpec', { controller: 1, parameters: 2 }) }))
}, 'IngressClass represents the class of the Ingress, referenced by the Ingress Spec.', { spec: 2 })

type Class = Record<string, any>

function defaultScope (c: Class): void {
  const params = c.spec?.parameters
  if (params !== undefined && params !== null && (params.scope === undefined || params.scope === null)) params.scope = 'Cluster'
}

function validateParameters (params: Class | undefined, field: string): FieldError[] {
  if (params === undefined || params === null) return []
  const errors = validateTypedReference(params, field)
  if (params.scope === undefined || params.scope === null) return [...errors, { type: 'Required', field: `${field}.scope` }]
  if (!SCOPES.includes(params.scope)) return [...errors, { type: 'NotSupported', field: `${field}.scope`, value: params.scope, supported: SCOPES }]
  if (params.scope === 'Namespace') {
    if (params.namespace === undefined || params.namespace === null) errors.push({ type: 'Required', field: `${field}.namespace`, detail: '`parameters.scope` is set to \'Namespace\'' })
    else errors.push(...invalidEach(`${field}.namespace`, params.namespace, dnsLabelProblems(params.namespace)))
  } else if (params.namespace !== undefined && params.namespace !== null) {
    errors.push({ type: 'Forbidden', field: `${field}.namespace`, detail: '`parameters.scope` is set to \'Cluster\'' })
  }
  return errors
}

export default defineResource({
  group: GROUPS.networking,
  version: 'v1',
  kind: 'IngressClass',
  plural: 'ingressclasses',
  singular: 'ingressclass',
  scope: 'Cluster',
  schema,
  strategy: {
    prepareForCreate: defaultScope,
    prepareForUpdate: defaultScope,
    validate (c) {
      const errors: FieldError[] = []
      const controller: string = c.spec?.controller ?? ''
      if (controller === '') errors.push({ type: 'Required', field: 'spec.controller' })
      else {
        if (controller.length > MAX_CONTROLLER_LENGTH) errors.push({ type: 'TooLong', field: 'spec.controller', detail: `may not be more than ${MAX_CONTROLLER_LENGTH} bytes` })
        errors.push(...validateDomainPrefixedPath(controller, 'spec.controller'))
      }
      errors.push(...validateParameters(c.spec?.parameters, 'spec.parameters'))
      return errors
    },
    validateUpdate (c, old) {
      if ((c.spec?.controller ?? '') === (old.spec?.controller ?? '')) return []
      return [{ type: 'Invalid', field: 'spec.controller', value: c.spec?.controller ?? '', detail: 'field is immutable' }]
    }
  },
  columns: [
    { name: 'Controller', type: 'string', description: 'Controller that is responsible for handling this class', value: (c: Class) => c.spec?.controller ?? '' },
    { name: 'Parameters', type: 'string', description: 'A reference to a resource with additional parameters', value: (c: Class) => parametersText(c.spec?.parameters) }
  ],
  example: {
    metadata: { name: 'example-lb' },
    spec: { controller: 'example.com/ingress-controller' }
  }
})

/** `Kind.group/name`, as kubectl shows a class's parameters. */
function parametersText (p: Class | undefined): string {
  if (p === undefined || p === null) return '<none>'
  return `${p.kind ?? ''}${typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : ''}/${p.name ?? ''}`
}
