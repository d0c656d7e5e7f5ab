// A CustomResourceDefinition the custom-resources tests share: CronTab, the reference docs'
// example, with a schema of every common constraint, status and scale, printer columns, a
// selectable field, and a deprecated second version.
type Obj = Record<string, any>

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        image: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        color: { type: 'string', enum: ['red', 'blue'] }
      },
      required: ['cronSpec']
    },
    status: { type: 'object', properties: { phase: { type: 'string' }, replicas: { type: 'integer' }, labelSelector: { type: 'string' } } }
  }
}

export const cronTabs = (extra: Obj = {}): Obj => ({
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: schema },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' } },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }
        ],
        selectableFields: [{ jsonPath: '.spec.color' }]
      },
      { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: schema } }
    ],
    ...extra
  }
})

