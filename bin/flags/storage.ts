// Where the server keeps its data: the flags the start-up entry (bin/server.ts) reads before
// the rest of the server is loaded, so that the embedded PostgreSQL starts first. This module
// and what it imports stay free of the app's code.
import type { Flags } from './index.js'
import { maybe, text } from './kinds.js'
import { readFlags } from './read.js'
import { flag } from './spec.js'

export const STORAGE_FLAGS = [
  flag({
    name: 'data-dir', key: 'dataDir', kind: text, default: './data', section: 'Storage', target: 'process: the embedded PostgreSQL, the certificates and the kubeconfig',
    help: 'Where the embedded PostgreSQL, the certificates and the kubeconfig live.'
  }),
  flag({
    name: 'storage-url', key: 'storageUrl', kind: maybe(text), default: (env) => env.DATABASE_URL, defaultText: '$DATABASE_URL', section: 'Storage', target: 'databaseUrl',
    help: 'A PostgreSQL URL to use instead of the embedded database.'
  })
] as const

/** The storage flags alone, read before the rest of the flag table is loaded; bin/flags.ts's parse checks the whole line later. */
export function readStorageFlags (argv: readonly string[], env: NodeJS.ProcessEnv): Pick<Flags, 'dataDir' | 'storageUrl'> {
  return readFlags(argv, STORAGE_FLAGS, env, true) as Pick<Flags, 'dataDir' | 'storageUrl'>
}
