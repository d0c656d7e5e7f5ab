// Node agent (svclet) flags: how this server dials a node's agent for logs, exec, attach,
// port-forward and nodes/proxy (the reference kube-apiserver's --kubelet-* flags).
import { duration, maybe, strings, text } from './kinds.js'
import { flag } from './spec.js'

export const NODE_AGENT_FLAGS = [
  flag({
    name: 'kubelet-client-certificate', key: 'kubeletClientCertificate', kind: maybe(text), default: undefined, readsFile: true, section: 'Misc', target: 'nodeAgent.clientCertPem',
    help: 'Path to a client cert file for TLS.'
  }),
  flag({
    name: 'kubelet-client-key', key: 'kubeletClientKey', kind: maybe(text), default: undefined, readsFile: true, section: 'Misc', target: 'nodeAgent.clientKeyPem',
    help: 'Path to a client key file for TLS.'
  }),
  flag({
    name: 'kubelet-certificate-authority', key: 'kubeletCertificateAuthority', kind: maybe(text), default: undefined, readsFile: true, section: 'Misc', target: 'nodeAgent.caPem',
    help: 'Path to a cert file for the certificate authority.'
  }),
  flag({
    name: 'kubelet-preferred-address-types', key: 'kubeletPreferredAddressTypes', kind: strings, default: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'], section: 'Misc', target: 'nodeAgent.preferredAddressTypes',
    check: (types) => {
      const known = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']
      for (const t of types) if (!known.includes(t)) throw new Error(`--kubelet-preferred-address-types: unsupported address type ${JSON.stringify(t)}`)
    },
    help: 'List of the preferred NodeAddressTypes to use for kubelet connections.'
  }),
  flag({
    name: 'kubelet-timeout', key: 'kubeletTimeoutMs', kind: duration, default: 5000, section: 'Misc', target: 'nodeAgent.timeoutMs',
    help: 'Timeout for kubelet operations.'
  })
] as const
