// The wide Table columns every replica-keeping workload shows (the reference's
// layoutContainerCells and the selector cell), over the pod template and selector it holds.
import type { AnyObject, Column } from './define.js'
import { labelSelectorText } from './label-selector.js'
import { validateLabelSelector } from './core-types.js'

const containersOf = (template: AnyObject | undefined): AnyObject[] => template?.spec?.containers ?? []

/** Containers and Images: the template's containers' names and images, comma-separated. */
export const templateColumns = (template: (obj: AnyObject) => AnyObject | undefined): Column[] => [
  { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.', value: (o) => containersOf(template(o)).map(c => c.name ?? '').join(',') },
  { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.', value: (o) => containersOf(template(o)).map(c => c.image ?? '').join(',') }
]

/** A label selector object's cell: its string form, `<invalid>` for one metav1 cannot convert. */
export const labelSelectorCell = (selector: AnyObject | undefined): string =>
  selector != null && validateLabelSelector(selector, 'selector').length > 0 ? '<invalid>' : labelSelectorText(selector)

/** A plain selector map's cell (labels.FormatLabels): `k=v` pairs by key, `<none>` for none. */
export const labelMapCell = (selector: Record<string, string> | undefined): string => {
  const text = labelSelectorText({ matchLabels: selector ?? {} })
  return text === '' ? '<none>' : text
}
