// One entry of the flag table: everything parsing, --help and the README check need to know
// about a flag, so that nothing about it is written a second time.
import type { AppOptions } from '../../server/app.js'
import type { Kind } from './kinds.js'

/**
 * The --help sections, in the order they are printed: the reference kube-apiserver's flag sets
 * (kube-controller-manager's for the controllers' flags), and Storage for this server's own.
 */
export const SECTIONS = ['Generic', 'Storage', 'Secure serving', 'Auditing', 'Authentication', 'Authorization', 'API enablement',
  'Admission', 'Metrics', 'Logs', 'Misc', 'Controller manager', 'CSR signing controller', 'Service account token controller', 'Global'] as const
export type Section = typeof SECTIONS[number]

type Plain<T> = T extends readonly unknown[] | ((...a: never[]) => unknown) ? never : T extends object ? T : never
/** `field` or `field.sub`: an option of AppOptions, checked by the compiler. */
export type AppOptionPath = { [K in keyof AppOptions & string]-?: K | `${K}.${keyof Plain<NonNullable<AppOptions[K]>> & string}` }[keyof AppOptions & string]

export interface Flag<K extends string = string, T = unknown> {
  /** Without the dashes, as the reference server names it. */
  readonly name: string
  /** pflag's one-letter form (`-h`). */
  readonly short?: string
  /** Its field in the parsed settings (bin/flags.ts's Flags). */
  readonly key: K
  readonly kind: Kind<T>
  /** Its value when not given; a function where the environment supplies it. */
  readonly default: NoInfer<T> | ((env: NodeJS.ProcessEnv) => NoInfer<T>)
  /**
   * The default as --help and the README say it, where the value alone says nothing: the
   * option it feeds decides (the Lease's namespace), or the environment does.
   */
  readonly defaultText?: string
  readonly section: Section
  /** The --help text: the reference's wording where the flag is the reference's. */
  readonly help: string
  /**
   * Where the value goes: an AppOptions option, or, for what the process uses before or
   * around the app (the listener, the data directory, the kubeconfig), a sentence saying so.
   */
  readonly target: AppOptionPath | `process: ${string}`
  /** The option gets the contents of the file the flag names (read at start), not its path. */
  readonly readsFile?: true
  /** Refuses a final value (after every occurrence: a later one replaces an earlier) by throwing. */
  check? (value: NoInfer<T>): void
}

/**
 * An entry with its key's literal type, so the settings' type can be read off the table; the
 * value's type comes from the kind alone (a default of 'v1beta1' does not widen v1 | v1beta1).
 */
export function flag<const K extends string, const T> (entry: Flag<K, T>): Flag<K, T> {
  return entry
}
