// Every kind this server serves, in registration order.
import type { Resource } from './define.js'
import namespaces from './namespaces.js'
import configmaps from './configmaps.js'
import secrets from './secrets.js'
import serviceaccounts from './serviceaccounts.js'

export const RESOURCES: readonly Resource[] = [
  namespaces,
  configmaps,
  secrets,
  serviceaccounts
]
