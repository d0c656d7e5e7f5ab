// NetworkPolicy (networking.svc.io/v1, namespaced): which traffic the pods a selector picks may
// receive (ingress rules, peers `from`) and send (egress rules, peers `to`), by peer and port.
// No status: the reference removed NetworkPolicyStatus in 1.28 before it ever held anything.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { AtomicList, LABEL_SELECTOR_FIELDS, LabelSelector, validateLabelSelector } from './core-types.js'
import { IntOrString } from './pod-types.js'
import { labelSelectorText } from './label-selector.js'
import { cidrProblems, invalidEach, portNameProblems } from './validation.js'
import { parseCidr } from './value-ranges.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const PROTOCOLS = ['TCP', 'UDP', 'SCTP']
const POLICY_TYPES = ['Ingress', 'Egress']

const selector = (description: string, extra: object = {}) =>
  Type.Object(LabelSelector.properties, { additionalProperties: false, 'x-kubernetes-map-type': 'atomic', description, ...extra, ...message('meta.v1.LabelSelector', LABEL_SELECTOR_FIELDS) })

const Port = Type.Object({
  protocol: opt(Type.String({ default: 'TCP', description: 'The protocol (TCP, UDP, or SCTP) which traffic must match. If not specified, this field defaults to TCP.' })),
  port: opt(IntOrString()),
  endPort: opt(Int32({ description: 'Indicates that the range of ports from port to endPort if set, inclusive, should be allowed by the policy. This field cannot be defined if the port field is not defined or if the port field is defined as a named (string) port.' }))
}, { ...struct, description: 'NetworkPolicyPort describes a port to allow traffic on', ...message('NetworkPolicyPort', { protocol: 1, port: 2, endPort: 3 }) })

const Peer = Type.Object({
  podSelector: opt(selector('A label selector which selects pods. If namespaceSelector is also set, it selects pods matching podSelector in the namespaces selected by namespaceSelector; otherwise pods in the policy\'s own namespace.')),
  namespaceSelector: opt(selector('Selects namespaces using cluster-scoped labels. If podSelector is also set, it selects pods matching podSelector in the namespaces selected by namespaceSelector; otherwise all pods in those namespaces.')),
  ipBlock: opt(Type.Object({
    cidr: Type.String({ description: 'A string representing the IPBlock. Valid examples are "192.168.1.0/24" or "2001:db8::/64".' }),
    except: opt(AtomicList(Type.String(), { description: 'A list of CIDRs that should not be included within the IPBlock. Except values will be rejected if they are outside the cidr range.' }))
  }, { ...struct, description: 'IPBlock describes a particular CIDR (Ex. "192.168.1.0/24","2001:db8::/64") that is allowed to the pods matched by a NetworkPolicySpec\'s podSelector.', ...message('IPBlock', { cidr: keepZero(1), except: 2 }) }))
}, { ...struct, description: 'NetworkPolicyPeer describes a peer to allow traffic to/from. Only certain combinations of fields are allowed', ...message('NetworkPolicyPeer', { podSelector: 1, namespaceSelector: 2, ipBlock: 3 }) })

const schema = objectSchema(`${GROUPS.networking}/v1`, 'NetworkPolicy', {
  spec: opt(Type.Object({
    podSelector: selector('podSelector selects the pods to which this NetworkPolicy object applies. An empty podSelector matches all pods in this namespace.', { default: {} }),
    ingress: opt(AtomicList(Type.Object({
      ports: opt(AtomicList(Port, { description: 'The ports which should be made accessible on the pods selected for this rule; all ports when empty or missing.' })),
      from: opt(AtomicList(Peer, { description: 'The sources which should be able to access the pods selected for this rule; all sources when empty or missing.' }))
    }, { ...struct, description: 'NetworkPolicyIngressRule describes a particular set of traffic that is allowed to the pods matched by a NetworkPolicySpec\'s podSelector.', ...message('NetworkPolicyIngressRule', { ports: 1, from: 2 }) }))),
    egress: opt(AtomicList(Type.Object({
      ports: opt(AtomicList(Port, { description: 'The destination ports for outgoing traffic; all ports when empty or missing.' })),
      to: opt(AtomicList(Peer, { description: 'The destinations for outgoing traffic of pods selected for this rule; all destinations when empty or missing.' }))
    }, { ...struct, description: 'NetworkPolicyEgressRule describes a particular set of traffic that is allowed out of pods matched by a NetworkPolicySpec\'s podSelector.', ...message('NetworkPolicyEgressRule', { ports: 1, to: 2 }) }))),
    policyTypes: opt(AtomicList(Type.String(), { description: 'The rule types that the NetworkPolicy relates to: "Ingress", "Egress", or both. Defaults to ["Ingress"], plus "Egress" when the policy has egress rules.' }))
  }, { ...struct, description: 'NetworkPolicySpec provides the specification of a NetworkPolicy', ...message('NetworkPolicySpec', { podSelector: 1, ingress: 2, egress: 3, policyTypes: 4 }) }))
}, 'NetworkPolicy describes what network traffic is allowed for a set of Pods', { spec: 2 })

type NetworkPolicy = Record<string, any>

/**
 * SetDefaults_NetworkPolicy: a policy naming no types is an Ingress policy, and an Egress one
 * too when it has egress rules. The reference's spec and podSelector are struct values, so a
 * policy sent without them has the empty ones (selecting every pod of the namespace).
 */
function defaultSpec (policy: NetworkPolicy): void {
  const spec = policy.spec ??= {}
  spec.podSelector ??= {}
  if ((spec.policyTypes ?? []).length > 0) return
  spec.policyTypes = (spec.egress ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress']
}

const validPortNumber = (n: number): boolean => n >= 1 && n <= 65535
const PORT_RANGE_MESSAGE = 'must be between 1 and 65535, inclusive'

function validatePort (port: NetworkPolicy, at: string): FieldError[] {
  const errors: FieldError[] = []
  if (port.protocol != null && !PROTOCOLS.includes(port.protocol)) errors.push({ type: 'NotSupported', field: `${at}.protocol`, value: port.protocol, supported: PROTOCOLS })
  const endPort = port.endPort
  if (typeof port.port === 'number') {
    if (!validPortNumber(port.port)) errors.push({ type: 'Invalid', field: `${at}.port`, value: port.port, detail: PORT_RANGE_MESSAGE })
    if (endPort != null) {
      // The reference reports the start port as the bad value here.
      if (endPort < port.port) errors.push({ type: 'Invalid', field: `${at}.endPort`, value: port.port, detail: 'must be greater than or equal to `port`' })
      if (!validPortNumber(endPort)) errors.push({ type: 'Invalid', field: `${at}.endPort`, value: endPort, detail: PORT_RANGE_MESSAGE })
    }
  } else if (typeof port.port === 'string') {
    if (endPort != null) errors.push({ type: 'Invalid', field: `${at}.endPort`, value: endPort, detail: 'may not be specified when `port` is non-numeric' })
    errors.push(...invalidEach(`${at}.port`, port.port, portNameProblems(port.port)))
  } else if (endPort != null) {
    errors.push({ type: 'Invalid', field: `${at}.endPort`, value: endPort, detail: 'may not be specified when `port` is not specified' })
  }
  return errors
}

/** A CIDR as ParseCIDRSloppy reads it (IPv4 octets may have leading zeros), undefined when none. */
function sloppyCidr (text: string): ReturnType<typeof parseCidr> {
  if (cidrProblems(text).length > 0) return undefined
  const slash = text.indexOf('/')
  const address = text.slice(0, slash)
  const normal = address.includes(':') ? address : address.split('.').map(o => String(Number(o))).join('.')
  return parseCidr(`${normal}${text.slice(slash)}`)
}

function validateIPBlock (block: NetworkPolicy, at: string): FieldError[] {
  const cidrText: string = block.cidr ?? ''
  if (cidrText === '') return [{ type: 'Required', field: `${at}.cidr` }]
  const errors = invalidEach(`${at}.cidr`, cidrText, cidrProblems(cidrText))
  const cidr = sloppyCidr(cidrText)
  if (cidr === undefined) return errors
  ;(block.except ?? []).forEach((text: string, i: number) => {
    const field = `${at}.except[${i}]`
    errors.push(...invalidEach(field, text, cidrProblems(text)))
    const except = sloppyCidr(text)
    if (except === undefined) return
    const inside = except.family === cidr.family && (except.base >> BigInt(cidr.bits - cidr.prefixLength)) === (cidr.base >> BigInt(cidr.bits - cidr.prefixLength))
    if (!inside || cidr.prefixLength >= except.prefixLength) errors.push({ type: 'Invalid', field, value: text, detail: 'must be a strict subset of `cidr`' })
  })
  return errors
}

function validatePeer (peer: NetworkPolicy, at: string): FieldError[] {
  const errors: FieldError[] = []
  let peers = 0
  if (peer.podSelector != null) { peers++; errors.push(...validateLabelSelector(peer.podSelector, `${at}.podSelector`)) }
  if (peer.namespaceSelector != null) { peers++; errors.push(...validateLabelSelector(peer.namespaceSelector, `${at}.namespaceSelector`)) }
  if (peer.ipBlock != null) { peers++; errors.push(...validateIPBlock(peer.ipBlock, `${at}.ipBlock`)) }
  if (peers === 0) errors.push({ type: 'Required', field: at, detail: 'must specify a peer' })
  else if (peers > 1 && peer.ipBlock != null) errors.push({ type: 'Forbidden', field: at, detail: 'may not specify both ipBlock and another peer' })
  return errors
}

function validateSpec (spec: NetworkPolicy): FieldError[] {
  const errors = validateLabelSelector(spec.podSelector, 'spec.podSelector')
  const rules = (direction: 'ingress' | 'egress', peersField: 'from' | 'to'): void => {
    ;(spec[direction] ?? []).forEach((rule: NetworkPolicy, i: number) => {
      const at = `spec.${direction}[${i}]`
      ;(rule.ports ?? []).forEach((port: NetworkPolicy, j: number) => errors.push(...validatePort(port, `${at}.ports[${j}]`)))
      ;(rule[peersField] ?? []).forEach((peer: NetworkPolicy, j: number) => errors.push(...validatePeer(peer, `${at}.${peersField}[${j}]`)))
    })
  }
  rules('ingress', 'from')
  rules('egress', 'to')
  const types: string[] = spec.policyTypes ?? []
  if (types.length > POLICY_TYPES.length) return [...errors, { type: 'Invalid', field: 'spec.policyTypes', value: types, detail: 'may not specify more than two policyTypes' }]
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errors.push({ type: 'NotSupported', field: `spec.policyTypes[${i}]`, value: t, supported: POLICY_TYPES })
  })
  return errors
}

export default defineResource({
  group: GROUPS.networking,
  version: 'v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  singular: 'networkpolicy',
  shortNames: ['netpol'],
  scope: 'Namespaced',
  schema,
  strategy: {
    prepareForCreate (policy) { defaultSpec(policy) },
    prepareForUpdate (policy) { defaultSpec(policy) },
    validate (policy) { return validateSpec(policy.spec ?? {}) }
  },
  columns: [
    {
      name: 'Pod-Selector',
      type: 'string',
      description: 'Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.',
      value: (p: NetworkPolicy) => labelSelectorText(p.spec?.podSelector) || '<none>'
    },
    AGE_COLUMN
  ],
  example: {
    metadata: { name: 'db-access' },
    spec: {
      podSelector: { matchLabels: { role: 'db' } },
      ingress: [{ from: [{ podSelector: { matchLabels: { role: 'frontend' } } }, { ipBlock: { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] } }], ports: [{ protocol: 'TCP', port: 6379 }] }],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/24' } }], ports: [{ port: 5978, endPort: 5990 }] }]
    }
  }
})
