// `--help`: every flag parseFlags takes, with its value type, as the reference server prints them.
import { knownFeatures } from '../resources/feature-gates.js'

type FlagHelp = [name: string, type: string, text: string]

const FLAGS: FlagHelp[] = [
  ['secure-port', 'int', 'The port on which to serve HTTPS. (default 6443)'],
  ['bind-address', 'ip', 'The IP address on which to listen. (default 127.0.0.1)'],
  ['data-dir', 'string', 'Where the embedded PostgreSQL, the certificates and the kubeconfig live. (default ./data)'],
  ['storage-url', 'string', 'A PostgreSQL URL to use instead of the embedded database (also DATABASE_URL).'],
  ['compaction-interval', 'duration', 'How often old revisions are compacted. (default 5m)'],
  ['shutdown-delay-duration', 'duration', 'How long /readyz fails before the server stops serving.'],
  ['shutdown-watch-termination-grace-period', 'duration', 'How long open watches may go on after the listener closed.'],
  ['enable-admission-plugins', 'strings', 'Admission plugins to enable beside the default set.'],
  ['disable-admission-plugins', 'strings', 'Admission plugins to disable, even from the default set.'],
  ['admission-control-config-file', 'string', 'File with the admission plugins\' configuration.'],
  ['admission-webhook-service-address', 'strings', '<name>.<namespace>.svc[:port]=host:port: where a service-addressed webhook is reached.'],
  ['default-not-ready-toleration-seconds', 'int', 'Toleration seconds for notReady:NoExecute added to pods. (default 300)'],
  ['default-unreachable-toleration-seconds', 'int', 'Toleration seconds for unreachable:NoExecute added to pods. (default 300)'],
  ['authorization-mode', 'strings', 'Ordered list of authorization modes: AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node. (default Node,RBAC)'],
  ['authorization-policy-file', 'string', 'The ABAC policy file.'],
  ['authorization-webhook-config-file', 'string', 'Kubeconfig of the authorization webhook.'],
  ['authorization-webhook-version', 'string', 'SubjectAccessReview version sent to the webhook: v1 or v1beta1. (default v1beta1)'],
  ['authorization-webhook-cache-authorized-ttl', 'duration', 'How long an allowed answer is cached. (default 5m)'],
  ['authorization-webhook-cache-unauthorized-ttl', 'duration', 'How long a denied answer is cached. (default 30s)'],
  ['anonymous-auth', '', 'Whether unauthenticated requests are system:anonymous. (default true)'],
  ['token-auth-file', 'string', 'Static bearer tokens (CSV).'],
  ['client-ca-file', 'string', 'CA bundle accepted for client certificates beside the cluster CA.'],
  ['tls-cert-file', 'string', 'Serving certificate (default: one issued by the cluster CA).'],
  ['tls-private-key-file', 'string', 'Key of --tls-cert-file.'],
  ['cert-dir', 'string', 'Directory of the cluster CA and serving certificate.'],
  ['api-audiences', 'strings', 'Audiences service account tokens are checked against.'],
  ['enable-bootstrap-token-auth', '', 'Accept bootstrap tokens from svc-system Secrets.'],
  ['service-account-key-file', 'string', 'Public keys accepted for service account tokens (repeatable).'],
  ['service-account-signing-key-file', 'string', 'Private key issued tokens are signed with.'],
  ['service-account-issuer', 'string', 'Issuer of service account tokens (repeatable; the first issues).'],
  ['service-account-lookup', '', 'Check that a token\'s service account still exists. (default true)'],
  ['oidc-issuer-url', 'string', 'OpenID Connect issuer whose ID tokens are accepted.'],
  ['oidc-client-id', 'string', 'The audience ID tokens must name.'],
  ['oidc-username-claim', 'string', 'Claim read as the user name.'],
  ['oidc-username-prefix', 'string', 'Prefix put before OIDC user names.'],
  ['oidc-groups-claim', 'string', 'Claim read as the user\'s groups.'],
  ['oidc-groups-prefix', 'string', 'Prefix put before OIDC group names.'],
  ['oidc-required-claim', 'mapStringString', 'key=value claims an ID token must carry.'],
  ['oidc-ca-file', 'string', 'CA bundle of the issuer.'],
  ['oidc-signing-algs', 'strings', 'Accepted signing algorithms.'],
  ['authentication-token-webhook-config-file', 'string', 'Kubeconfig of the token authentication webhook.'],
  ['authentication-token-webhook-version', 'string', 'TokenReview version sent to the webhook. (default v1beta1)'],
  ['authentication-token-webhook-cache-ttl', 'duration', 'How long webhook answers are cached. (default 2m)'],
  ['requestheader-client-ca-file', 'string', 'CA of the front proxy whose identity headers are trusted.'],
  ['requestheader-allowed-names', 'strings', 'Common names the front proxy\'s certificate may have.'],
  ['requestheader-username-headers', 'strings', 'Headers read for the user name.'],
  ['requestheader-uid-headers', 'strings', 'Headers read for the user\'s UID.'],
  ['requestheader-group-headers', 'strings', 'Headers read for the groups.'],
  ['requestheader-extra-headers-prefix', 'strings', 'Header prefixes read for extra attributes.'],
  ['controllers', 'strings', 'Controllers to run: * for the default set, foo to add, -foo to leave out.'],
  ['leader-elect', '', 'Run the controllers only while holding the controller Lease. (default true)'],
  ['leader-elect-lease-duration', 'duration', '(default 15s)'],
  ['leader-elect-renew-deadline', 'duration', '(default 10s)'],
  ['leader-elect-retry-period', 'duration', '(default 2s)'],
  ['leader-elect-resource-namespace', 'string', 'Namespace of the controller Lease.'],
  ['leader-elect-resource-name', 'string', 'Name of the controller Lease.'],
  ['cluster-signing-cert-file', 'string', 'CA certificate the built-in signers issue with (default the cluster CA).'],
  ['cluster-signing-key-file', 'string', 'Key of --cluster-signing-cert-file.'],
  ['cluster-signing-duration', 'duration', 'Longest validity of issued certificates. (default 8760h)'],
  ['runtime-config', 'mapStringString', 'Group versions to serve: api/all, api/ga, api/beta, api/alpha, <group>/<version> or <group>/<version>/<resource>, =true or =false.'],
  ['feature-gates', 'colonSeparatedMultimapStringString', 'A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n' + knownFeatures().join('\n')],
  ['show-hidden-metrics-for-version', 'string', 'The previous release, whose hidden metrics are shown again (e.g. 1.32).'],
  ['audit-policy-file', 'string', 'The audit policy.'],
  ['audit-log-path', 'string', 'Where audit events are written (- for standard output).'],
  ['audit-log-maxage', 'int', 'Days old audit log files are kept.'],
  ['audit-log-maxbackup', 'int', 'How many old audit log files are kept.'],
  ['audit-log-maxsize', 'int', 'Megabytes an audit log file may grow to before it is rotated.'],
  ['log-level', 'string', 'trace, debug, info, warn or error. (default info)']
]

export function usage (): string {
  const lines = ['Usage: svc-apiserver [flags]', '', 'Flags:']
  for (const [name, type, text] of FLAGS) {
    lines.push(`      --${name}${type === '' ? '' : ` ${type}`}`)
    for (const line of text.split('\n')) lines.push(`                ${line}`)
  }
  lines.push('  -h, --help', '                help for svc-apiserver')
  return lines.join('\n') + '\n'
}

/** The flags --help documents, for the test that keeps this list and parseFlags together. */
export const DOCUMENTED_FLAGS: readonly string[] = FLAGS.map(([name]) => name)
