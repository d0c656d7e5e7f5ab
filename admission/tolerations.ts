// Toleration sets as the scheduling admission plugins combine them (upstream's
// pkg/util/tolerations): a toleration another one already covers is dropped from a merge, and
// a whitelist allows a toleration that one of its entries covers.
import type { AnyObject } from '../resources/define.js'

const text = (v: unknown): string => typeof v === 'string' ? v : ''
const operatorOf = (t: AnyObject): string => text(t.operator) === '' ? 'Equal' : text(t.operator)

function sameToleration (a: AnyObject, b: AnyObject): boolean {
  return text(a.key) === text(b.key) && text(a.operator) === text(b.operator) && text(a.value) === text(b.value) &&
    text(a.effect) === text(b.effect) && (a.tolerationSeconds ?? null) === (b.tolerationSeconds ?? null)
}

/** Whether `wide` tolerates every taint `t` tolerates. */
export function covers (wide: AnyObject, t: AnyObject): boolean {
  if (sameToleration(wide, t)) return true
  // An empty key with Exists matches every key.
  if (text(t.key) !== text(wide.key) && (text(wide.key) !== '' || operatorOf(wide) !== 'Exists')) return false
  // An empty effect matches every effect.
  if (text(t.effect) !== text(wide.effect) && text(wide.effect) !== '') return false
  if (text(wide.effect) === 'NoExecute' && typeof wide.tolerationSeconds === 'number') {
    if (typeof t.tolerationSeconds !== 'number' || t.tolerationSeconds > wide.tolerationSeconds) return false
  }
  switch (operatorOf(wide)) {
    case 'Equal': return operatorOf(t) === 'Equal' && text(t.value) === text(wide.value)
    case 'Exists': return true
    default: return false
  }
}

/** `first` then `second`, without the tolerations another one in the result covers (of two equal ones the first stays). */
export function mergeTolerations (first: AnyObject[], second: AnyObject[]): AnyObject[] {
  const all = [...first, ...second]
  const merged: AnyObject[] = []
  all.forEach((t, i) => {
    if (merged.some(kept => covers(kept, t))) return
    if (all.slice(i + 1).some(later => !sameToleration(t, later) && covers(later, t))) return
    merged.push(t)
  })
  return merged
}

/** Whether an entry of the whitelist covers each toleration (an empty whitelist allows all). */
export function allowedByWhitelist (tolerations: AnyObject[], whitelist: AnyObject[]): boolean {
  if (whitelist.length === 0) return true
  return tolerations.every(t => whitelist.some(w => covers(w, t)))
}
