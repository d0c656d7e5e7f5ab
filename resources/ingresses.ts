// Ingress (networking.svc.io/v1, namespaced): HTTP routes from hosts and paths to Services or
// other backends, implemented by the controller of its IngressClass. The v1 shape: a
// `defaultBackend`, backends naming `service.name` with `service.port.number` or
// `service.port.name` (or a typed `resource`), and a required `pathType` on every path.
import { isIP } from 'node:net'
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, objectSchema } from './meta.js'
import { ANNOTATIONS, GROUPS } from './naming.js'
import { AtomicList, TypedLocalObjectReference } from './core-types.js'
import { hostProblems, validateBackend, validateHttpPath, validateRuleHost } from './ingress-rules.js'
import { dnsSubdomainProblems, invalidEach } from './validation.js'
import { inlined, keepZero, message } from './protobuf.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const Backend = Type.Object({
  service: opt(Type.Object({
    name: Type.String({ description: 'The referenced Service, in the Ingress\'s namespace.' }),
    port: opt(Type.Object({
      name: opt(Type.String({ description: 'The named port of the Service.' })),
      number: opt(Int32({ description: 'The numerical port of the Service.' }))
    }, { ...struct, description: 'The port of the Service; exactly one of name or number.', ...message('ServiceBackendPort', { name: 1, number: 2 }) }))
  }, { ...struct, description: 'A Service as a backend; mutually exclusive with resource.', ...message('IngressServiceBackend', { name: keepZero(1), port: 2 }) })),
  resource: opt(TypedLocalObjectReference)
}, { ...struct, description: 'IngressBackend describes all endpoints for a given service and port.', ...message('IngressBackend', { resource: 3, service: 4 }) })

const PortStatus = Type.Object({
  port: Int32(),
  protocol: Type.String(),
  error: opt(Type.String())
}, { ...struct, ...message('IngressPortStatus', { port: keepZero(1), protocol: keepZero(2), error: keepZero(3) }) })

const schema = objectSchema(`${GROUPS.networking}/v1`, 'Ingress', {
  spec: opt(Type.Object({
    ingressClassName: opt(Type.String({ description: 'The IngressClass of this Ingress; the default class is given on create when unset.' })),
    defaultBackend: opt(Backend),
    tls: opt(AtomicList(Type.Object({
      hosts: opt(AtomicList(Type.String(), { description: 'Hosts the TLS certificate covers.' })),
      secretName: opt(Type.String({ description: 'The Secret holding the certificate and key.' }))
    }, { ...struct, ...message('IngressTLS', { hosts: 1, secretName: 2 }) }))),
    rules: opt(AtomicList(Type.Object({
      host: opt(Type.String({ description: 'A DNS name, or one with "*." as its first label; every host when unset.' })),
      http: opt(Type.Object({
        paths: AtomicList(Type.Object({
          path: opt(Type.String()),
          pathType: opt(Type.String({ description: 'Exact, Prefix or ImplementationSpecific.' })),
          backend: Backend
        }, { ...struct, ...message('HTTPIngressPath', { path: 1, backend: 2, pathType: keepZero(3) }) }))
      }, { ...struct, ...message('HTTPIngressRuleValue', { paths: 1 }) }))
    }, { ...struct, ...message('IngressRule', { host: 1 }, { ingressRuleValue: inlined(2, 'IngressRuleValue', { http: 1 }) }) })))
  }, { ...struct, description: 'IngressSpec describes the Ingress the user wishes to exist.', ...message('IngressSpec', { defaultBackend: 1, tls: 2, rules: 3, ingressClassName: keepZero(4) }) })),
  status: opt(Type.Object({
    loadBalancer: opt(Type.Object({
      ingress: opt(AtomicList(Type.Object({
        ip: opt(Type.String()),
        hostname: opt(Type.String()),
        ports: opt(AtomicList(PortStatus))
      }, { ...struct, ...message('IngressLoadBalancerIngress', { ip: 1, hostname: 2, ports: 4 }) })))
    }, { ...struct, ...message('IngressLoadBalancerStatus', { ingress: 1 }) }))
  }, { ...struct, ...message('IngressStatus', { loadBalancer: 1 }) }))
}, 'Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend.', { spec: 2, status: 3 })

type Ingress = Record<string, any>

function validateSpec (spec: Ingress, ingress: Ingress): FieldError[] {
  const errors: FieldError[] = []
  const rules: Ingress[] = spec.rules ?? []
  if (rules.length === 0 && spec.defaultBackend == null) errors.push({ type: 'Invalid', field: 'spec', value: rules, detail: 'either `defaultBackend` or `rules` must be specified' })
  if (spec.defaultBackend != null) errors.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'))
  rules.forEach((rule, i) => {
    const at = `spec.rules[${i}]`
    if ((rule.host ?? '') !== '') errors.push(...validateRuleHost(rule.host, `${at}.host`))
    if (rule.http == null) return
    const paths: Ingress[] = rule.http.paths ?? []
    if (paths.length === 0) errors.push({ type: 'Required', field: `${at}.http.paths` })
    paths.forEach((p, j) => errors.push(...validateHttpPath(p, `${at}.http.paths[${j}]`)))
  })
  ;(spec.tls ?? []).forEach((tls: Ingress, i: number) => {
    ;(tls.hosts ?? []).forEach((host: string, j: number) => errors.push(...invalidEach(`spec.tls[${i}].hosts[${j}]`, host, hostProblems(host))))
    if ((tls.secretName ?? '') !== '') errors.push(...invalidEach(`spec.tls[${i}].secretName`, tls.secretName, dnsSubdomainProblems(tls.secretName)))
  })
  if (typeof spec.ingressClassName === 'string') errors.push(...invalidEach('spec.ingressClassName', spec.ingressClassName, dnsSubdomainProblems(spec.ingressClassName)))
  // On create only, as the reference server checks it (objects stored before keep working); the
  // store clears resourceVersion on create and carries the stored one into an update.
  const annotated = ingress.metadata?.annotations?.[ANNOTATIONS.ingressClass]
  const creating = ingress.metadata?.resourceVersion === undefined
  if (creating && annotated !== undefined && typeof spec.ingressClassName === 'string' && annotated !== spec.ingressClassName) {
    errors.push({ type: 'Invalid', field: `annotations.${ANNOTATIONS.ingressClass}`, value: annotated, detail: 'must match `ingressClassName` when both are specified' })
  }
  return errors
}

function validateLoadBalancer (ingress: Ingress): FieldError[] {
  const errors: FieldError[] = []
  ;(ingress.status?.loadBalancer?.ingress ?? []).forEach((lb: Ingress, i: number) => {
    const at = `status.loadBalancer.ingress[${i}]`
    if ((lb.ip ?? '') !== '' && isIP(lb.ip) === 0) errors.push({ type: 'Invalid', field: `${at}.ip`, value: lb.ip, detail: 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' })
    if ((lb.hostname ?? '') !== '') {
      errors.push(...invalidEach(`${at}.hostname`, lb.hostname, dnsSubdomainProblems(lb.hostname)))
      if (isIP(lb.hostname) !== 0) errors.push({ type: 'Invalid', field: `${at}.hostname`, value: lb.hostname, detail: 'must be a DNS name, not an IP address' })
    }
  })
  return errors
}

const deprecatedAnnotationWarning = (ingress: Ingress, warnings: string[]): void => {
  if (ingress.metadata?.annotations?.[ANNOTATIONS.ingressClass] !== undefined) {
    warnings.push(`annotation "${ANNOTATIONS.ingressClass}" is deprecated, please use 'spec.ingressClassName' instead`)
  }
}

/**
 * The first three hosts, `*` for none, as the reference printer shows them: once three are
 * listed, any further rule adds `+ N more...`, N counting rules (hostless ones too) past three.
 */
function hostsText (rules: Ingress[] | undefined): string {
  const all = rules ?? []
  const hosts: string[] = []
  let more = false
  for (const rule of all) {
    if (hosts.length === 3) more = true
    if (!more && (rule.host ?? '') !== '') hosts.push(rule.host)
  }
  if (hosts.length === 0) return '*'
  return more ? `${hosts.join(',')} + ${all.length - 3} more...` : hosts.join(',')
}

function addressText (ingress: Ingress): string {
  const addresses = new Set<string>()
  for (const lb of ingress.status?.loadBalancer?.ingress ?? []) {
    if ((lb.ip ?? '') !== '') addresses.add(lb.ip)
    else if ((lb.hostname ?? '') !== '') addresses.add(lb.hostname)
  }
  return [...addresses].sort().join(',')
}

export default defineResource({
  group: GROUPS.networking,
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  singular: 'ingress',
  shortNames: ['ing'],
  scope: 'Namespaced',
  schema,
  subresources: { status: statusSubresource() },
  strategy: {
    prepareForCreate (ingress, ctx) { deprecatedAnnotationWarning(ingress, ctx.warnings) },
    prepareForUpdate (ingress, _old, ctx) { deprecatedAnnotationWarning(ingress, ctx.warnings) },
    validate (ingress) {
      return [...validateSpec(ingress.spec ?? {}, ingress), ...validateLoadBalancer(ingress)]
    }
  },
  columns: [
    { name: 'Class', type: 'string', description: 'The name of the IngressClass resource that should be used for additional configuration', value: (i: Ingress) => i.spec?.ingressClassName ?? '<none>' },
    { name: 'Hosts', type: 'string', description: 'Hosts that incoming requests are matched against before the ingress rule', value: (i: Ingress) => hostsText(i.spec?.rules) },
    { name: 'Address', type: 'string', description: 'Address is a list containing ingress points for the load-balancer', value: addressText },
    { name: 'Ports', type: 'string', description: 'Ports of TLS configurations that open', value: (i: Ingress) => (i.spec?.tls ?? []).length > 0 ? '80, 443' : '80' },
    AGE_COLUMN
  ],
  example: {
    metadata: { name: 'web' },
    spec: { rules: [{ host: 'www.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
    status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } }
  }
})
