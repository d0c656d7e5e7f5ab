// RuntimeClass (node.svc.io/v1, cluster scope): a container runtime configuration a pod names
// in spec.runtimeClassName. The RuntimeClass admission plugin copies the class's pod overhead
// and scheduling constraints onto the pods that name it.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { objectSchema, StringMap } from './meta.js'
import { AtomicList, ResourceList, Toleration, immutable, validateRequirements, validateTolerations } from './core-types.js'
import { GROUPS } from './naming.js'
import { dnsLabelProblems, invalidEach, validateLabels } from './validation.js'
import { keepZero, message } from './protobuf.js'
import { nodeLabelDeprecation, warnOnWrite } from './deprecation-warnings.js'

const opt = Type.Optional

const schema = objectSchema(`${GROUPS.node}/v1`, 'RuntimeClass', {
  handler: Type.String({ description: 'The name of the runtime configuration the node agent uses for pods of this class (a DNS label); immutable.' }),
  overhead: opt(Type.Object({
    podFixed: opt(ResourceList({ description: 'The fixed resources a pod of this class costs beyond its containers.' }))
  }, { additionalProperties: false, description: 'The resource overhead of running a pod with this class.', ...message('Overhead', { podFixed: 1 }) })),
  scheduling: opt(Type.Object({
    nodeSelector: opt(StringMap({ 'x-kubernetes-map-type': 'atomic', description: 'Labels a node must carry to run pods of this class; merged into the pod\'s nodeSelector.' })),
    tolerations: opt(AtomicList(Toleration, { description: 'Tolerations added to pods of this class.' }))
  }, { additionalProperties: false, description: 'The nodes that support this class.', ...message('Scheduling', { nodeSelector: 1, tolerations: 2 }) }))
}, 'RuntimeClass defines a class of container runtime supported in the cluster.', { handler: keepZero(2), overhead: 3, scheduling: 4 })

type Class = Record<string, any>

function validate (rc: Class): FieldError[] {
  const errors: FieldError[] = []
  const handler: unknown = rc.handler
  if (typeof handler !== 'string') errors.push({ type: 'Required', field: 'handler' })
  else errors.push(...invalidEach('handler', handler, dnsLabelProblems(handler)))
  // The overhead is checked as the limits of a container's requirements, as upstream does.
  if (rc.overhead !== undefined) errors.push(...validateRequirements({ limits: rc.overhead.podFixed }, 'overhead'))
  if (rc.scheduling !== undefined) {
    errors.push(...validateLabels(rc.scheduling.nodeSelector, 'scheduling.nodeSelector'))
    errors.push(...validateTolerations(rc.scheduling.tolerations, 'scheduling.tolerations'))
  }
  return errors
}

export default defineResource({
  group: GROUPS.node,
  version: 'v1',
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  singular: 'runtimeclass',
  scope: 'Cluster',
  schema,
  generation: false,
  strategy: {
    validate,
    // The reference names the field, not the key.
    ...warnOnWrite((rc: Class) => Object.keys(rc.scheduling?.nodeSelector ?? {}).flatMap(k => {
      const msg = nodeLabelDeprecation(k)
      return msg === undefined ? [] : [`scheduling.nodeSelector: ${msg}`]
    })),
    validateUpdate: (rc, old) => immutable('handler', rc.handler, old.handler)
  },
  columns: [
    { name: 'Handler', type: 'string', description: 'The runtime configuration pods of this class run with', value: (c: Class) => c.handler }
  ],
  example: {
    metadata: { name: 'gvisor' },
    handler: 'runsc'
  }
})
