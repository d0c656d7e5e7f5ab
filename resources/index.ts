// Every kind this server serves, in registration order.
import type { Resource } from './define.js'
import namespaces from './namespaces.js'
import configmaps from './configmaps.js'
import secrets from './secrets.js'
import persistentvolumeclaims from './persistentvolumeclaims.js'
import persistentvolumes from './persistentvolumes.js'
import pods from './pods.js'
import nodes from './nodes.js'
import storageclasses from './storageclasses.js'
import volumeattachments from './volumeattachments.js'
import csidrivers from './csidrivers.js'
import csinodes from './csinodes.js'
import csistoragecapacities from './csistoragecapacities.js'

export const RESOURCES: readonly Resource[] = [
  namespaces,
  configmaps,
  secrets,
  persistentvolumeclaims,
  persistentvolumes,
  pods,
  nodes,
  storageclasses,
  volumeattachments,
  csidrivers,
  csinodes,
  csistoragecapacities
]
