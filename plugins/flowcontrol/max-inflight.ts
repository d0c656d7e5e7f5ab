// The plain in-flight limits (the reference's maxinflight filter), used when API Priority and
// Fairness is disabled: read-only requests up to --max-requests-inflight, the rest up to
// --max-mutating-requests-inflight (0: no limit); no queue, a full limit is 429 at once, and
// members of system:masters are never turned away. Long-running requests are not counted.
import { PRIVILEGED_GROUP, type UserInfo } from '../../resources/user-info.js'
import type { RequestInfo } from '../request-info.js'

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch'])

/** Whether a request counts as mutating for the in-flight limits and metrics (the reference's nonMutatingRequestVerbs). */
export const isMutatingVerb = (verb: string): boolean => !READ_ONLY_VERBS.has(verb)

export class InflightLimits {
  private readOnly = 0
  private mutating = 0

  /** Requests holding a slot now, read-only and mutating apart. */
  get inUse (): { readOnly: number, mutating: number } { return { readOnly: this.readOnly, mutating: this.mutating } }

  constructor (private readonly readOnlyLimit: number, private readonly mutatingLimit: number) {}

  /** A release function when the request may run; undefined when its limit is full. */
  admit (info: RequestInfo, user: UserInfo): (() => void) | undefined {
    const mutating = isMutatingVerb(info.verb)
    const limit = mutating ? this.mutatingLimit : this.readOnlyLimit
    if (limit === 0) return () => {}
    const inUse = mutating ? this.mutating : this.readOnly
    if (inUse >= limit) {
      return user.groups.includes(PRIVILEGED_GROUP) ? () => {} : undefined
    }
    if (mutating) this.mutating++
    else this.readOnly++
    let released = false
    return () => {
      if (released) return
      released = true
      if (mutating) this.mutating--
      else this.readOnly--
    }
  }
}
