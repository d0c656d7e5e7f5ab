// A pod template (core v1 PodTemplateSpec): the pods a workload makes, as metadata and a pod
// spec. Defaulted and validated as a Pod's spec is, under the path the template sits at, with
// the rules the reference's ValidatePodTemplateSpec adds; each workload adds its own.
import { Type } from '@sinclair/typebox'
import type { AnyObject, FieldError } from './define.js'
import { goStringMap } from './status.js'
import { ObjectMeta } from './meta.js'
import { defaultPodSpec, PodSpec, validatePodSpec } from './pod-spec.js'
import { validateAnnotations, validateLabels } from './validation.js'
import { message } from './protobuf.js'
import { labelSelectorMatches } from './label-selector.js'

export const PodTemplateSpec = Type.Object({
  metadata: Type.Optional(ObjectMeta),
  spec: Type.Optional(PodSpec)
}, { additionalProperties: false, description: 'PodTemplateSpec describes the data a pod should have when created from a template', ...message('core.v1.PodTemplateSpec', { metadata: 1, spec: 2 }) })

/** The top-level defaults of a pod spec, for a template that names no spec (Go's zero struct is defaulted too). */
const SPEC_DEFAULTS = Object.entries(PodSpec.properties)
  .filter(([, s]) => (s as AnyObject).default !== undefined)
  .map(([k, s]) => [k, (s as AnyObject).default] as const)

/** Fills a template's defaults as a Pod's are filled; returns the template (created when absent). */
export function defaultPodTemplate (template: AnyObject | undefined): AnyObject {
  const t = template ?? {}
  if (t.spec == null) {
    t.spec = {}
    for (const [k, v] of SPEC_DEFAULTS) t.spec[k] = structuredClone(v)
  }
  defaultPodSpec(t.spec)
  return t
}

/** The problems of a template at `at` (`spec.template`), as the reference's ValidatePodTemplateSpec. */
export function validatePodTemplate (template: AnyObject | undefined, at: string): FieldError[] {
  if (template == null) return [{ type: 'Required', field: at }]
  const errors: FieldError[] = [
    ...validateLabels(template.metadata?.labels, `${at}.metadata.labels`),
    ...validateAnnotations(template.metadata?.annotations, `${at}.metadata.annotations`),
    ...validatePodSpec(template.spec ?? {}, `${at}.spec`)
  ]
  if ((template.spec?.ephemeralContainers ?? []).length > 0) {
    errors.push({ type: 'Forbidden', field: `${at}.spec.ephemeralContainers`, detail: 'ephemeral containers not allowed in pod template' })
  }
  return errors
}

/** The reference's check that a workload's selector selects the pods its template makes. */
export function validateSelectorSelectsTemplate (selector: AnyObject | undefined, template: AnyObject | undefined, at: string): FieldError[] {
  const labels = template?.metadata?.labels ?? {}
  const empty = selector == null || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
  if (empty || labelSelectorMatches(selector, labels)) return []
  return [selectorMismatch(template, at)]
}

/** The reference's error for a template whose labels its workload's selector does not select. */
export const selectorMismatch = (template: AnyObject | undefined, at: string): FieldError =>
  ({ type: 'Invalid', field: `${at}.metadata.labels`, value: goStringMap(template?.metadata?.labels), detail: '`selector` does not match template `labels`' })
