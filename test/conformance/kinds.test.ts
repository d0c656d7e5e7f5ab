// The conformance suite: every kind in RESOURCES, in every version the server serves, through the
// generic behaviours its verbs and subresources allow. A kind takes part through its `example`.
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { RESOURCES } from '../../resources/index.js'
import { BEHAVIOURS } from './behaviours.js'
import { namespaceOf, servedVersions, subjectOf } from './subject.js'
import { readyNamespace } from './namespaces.js'
import { knownDefect } from './known-defects.js'

// One app for every kind: the behaviours only inject, and each kind's objects have names of their own.
// Without the node lifecycle controller, which retaints a Ready node between a behaviour's read
// and its write (test/controllers/node-lifecycle.test.ts covers it). The kinds behind a feature
// gate (MutatingAdmissionPolicy's) are turned on, with their alpha group version, to take part.
const api = await buildTestApp({ after }, {
  controllers: ['*', '-nodelifecycle'],
  featureGates: { MutatingAdmissionPolicy: true },
  runtimeConfig: ['admissionregistration.svc.io/v1alpha1=true']
})

/**
 * Kinds whose create acts on another object, once, so no example stands alone; each is
 * covered where that object is made.
 */
const WITHOUT_EXAMPLE: Readonly<Record<string, string>> = {
  Binding: 'binds an existing pod to a node, once (test/resources/pod-binding.test.ts)'
}

for (const definition of RESOURCES) {
  const title = definition.group === '' ? definition.plural : `${definition.plural}.${definition.group}`
  describe(title, () => {
    const example = definition.example
    it('has an example', { skip: WITHOUT_EXAMPLE[definition.kind] ?? false }, () => {
      assert.ok(example !== undefined, `${definition.kind} has no example in its definition: the suite cannot run it`)
      assert.ok(typeof example.metadata?.name === 'string' && example.metadata.name !== '', 'the example has a metadata.name')
    })
    if (example === undefined) return
    const namespace = namespaceOf(definition, example)
    if (namespace !== '') before(() => readyNamespace(api, namespace))
    servedVersions(api, definition).forEach((served, index) => {
      describe(served.apiVersion, () => {
        const subject = subjectOf(api, definition, served, index)
        for (const behaviour of BEHAVIOURS) {
          const applies = behaviour.applies(subject, api)
          if (applies === false) continue
          const skip = applies === true ? false : applies
          it(behaviour.name, { skip, todo: knownDefect(behaviour, subject) ?? false }, () => behaviour.run(subject, api))
        }
      })
    })
  })
}
