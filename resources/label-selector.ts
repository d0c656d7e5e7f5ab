// A metav1.LabelSelector object (matchLabels and matchExpressions) as workloads hold it: whether
// it selects a set of labels, and the string form a Scale's status carries.
import type { AnyObject } from './define.js'

type Requirement = { key: string, operator: string, values?: string[] }

/**
 * A label selector as the string a Scale's status carries (metav1.LabelSelectorAsSelector then
 * String): requirements ordered by key, values sorted; '' for none or an empty selector.
 */
export function labelSelectorText (selector: AnyObject | undefined | null): string {
  if (selector == null) return ''
  const requirements: Requirement[] = [
    ...Object.entries((selector.matchLabels ?? {}) as Record<string, string>).map(([key, value]) => ({ key, operator: '=', values: [value] })),
    ...((selector.matchExpressions ?? []) as Requirement[])
  ]
  return requirements
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.key < b.r.key ? -1 : a.r.key > b.r.key ? 1 : a.i - b.i)
    .map(({ r }) => {
      const values = [...(r.values ?? [])].sort().join(',')
      switch (r.operator) {
        case '=': return `${r.key}=${values}`
        case 'In': return `${r.key} in (${values})`
        case 'NotIn': return `${r.key} notin (${values})`
        case 'Exists': return r.key
        case 'DoesNotExist': return `!${r.key}`
        default: return `${r.key} ${r.operator.toLowerCase()} (${values})`
      }
    }).join(',')
}

/** Whether a label selector (matchLabels and matchExpressions) selects `labels`. */
export function labelSelectorMatches (selector: AnyObject, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries((selector.matchLabels ?? {}) as Record<string, string>)) if (labels[k] !== v) return false
  for (const r of (selector.matchExpressions ?? []) as Requirement[]) {
    const has = Object.hasOwn(labels, r.key)
    const values = r.values ?? []
    switch (r.operator) {
      case 'In': if (!has || !values.includes(labels[r.key]!)) return false; break
      case 'NotIn': if (has && values.includes(labels[r.key]!)) return false; break
      case 'Exists': if (!has) return false; break
      case 'DoesNotExist': if (has) return false; break
      default: return false
    }
  }
  return true
}
