// The shape of one generic behaviour the suite runs on every served version of every kind.
import type { TestApp } from '../helpers/app.js'
import type { Verb } from '../../resources/define.js'
import type { Subject } from './subject.js'

export interface Behaviour {
  name: string
  /**
   * true: it runs; a string: it is reported skipped for that reason; false: it does not apply
   * (the kind's verbs, scope or subresources rule it out) and is not declared.
   */
  applies (s: Subject, api: TestApp): boolean | string
  run (s: Subject, api: TestApp): Promise<void>
}

/** Whether the version serves every one of `verbs` on stored objects (virtual kinds store none). */
export const stores = (s: Subject, ...verbs: Verb[]): boolean =>
  s.served.virtual === undefined && verbs.every(v => s.served.verbs.includes(v))
