// Authentication flags: client certificates, tokens (static, bootstrap, service account, OIDC,
// webhook), the authenticating proxy, and anonymous requests.
import { bool, duration, keyValues, maybe, oneOf, stringArray, strings, text } from './kinds.js'
import { flag } from './spec.js'

/** The review versions a webhook (authentication's or authorization's) is sent. */
export const WEBHOOK_VERSIONS = ['v1', 'v1beta1'] as const

const SERVICE_ACCOUNT_FLAGS = [
  flag({
    name: 'api-audiences', key: 'apiAudiences', kind: maybe(strings), default: undefined, section: 'Authentication', target: 'apiAudiences',
    help: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.'
  }),
  flag({
    name: 'service-account-key-file', key: 'serviceAccountKeyFiles', kind: stringArray, default: [], readsFile: true, section: 'Authentication', target: 'serviceAccounts.verifyKeyPems',
    help: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. Tokens signed with the signing key are always accepted.'
  }),
  flag({
    name: 'service-account-signing-key-file', key: 'serviceAccountSigningKeyFile', kind: maybe(text), default: undefined, defaultText: '<cert-dir>/sa.key', readsFile: true, section: 'Authentication', target: 'serviceAccounts.signingKeyPem',
    help: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key.'
  }),
  flag({
    name: 'service-account-issuer', key: 'serviceAccountIssuers', kind: stringArray, default: [], section: 'Authentication', target: 'serviceAccounts.issuers',
    help: 'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted.'
  }),
  flag({
    name: 'service-account-lookup', key: 'serviceAccountLookup', kind: bool, default: true, section: 'Authentication', target: 'serviceAccounts.lookup',
    help: 'If true, validate ServiceAccount tokens exist in storage as part of authentication.'
  })
] as const

const OIDC_FLAGS = [
  flag({
    name: 'oidc-issuer-url', key: 'oidcIssuerUrl', kind: maybe(text), default: undefined, section: 'Authentication', target: 'oidc.issuerUrl',
    help: 'The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).'
  }),
  flag({
    name: 'oidc-client-id', key: 'oidcClientId', kind: maybe(text), default: undefined, section: 'Authentication', target: 'oidc.clientId',
    help: 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.'
  }),
  flag({
    name: 'oidc-username-claim', key: 'oidcUsernameClaim', kind: maybe(text), default: undefined, defaultText: 'sub', section: 'Authentication', target: 'oidc.usernameClaim',
    help: 'The OpenID claim to use as the user name. Note that claims other than the default (\'sub\') is not guaranteed to be unique and immutable.'
  }),
  flag({
    name: 'oidc-username-prefix', key: 'oidcUsernamePrefix', kind: maybe(text), default: undefined, section: 'Authentication', target: 'oidc.usernamePrefix',
    help: 'If provided, all usernames will be prefixed with this value. If not provided, username claims other than \'email\' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value \'-\'.'
  }),
  flag({
    name: 'oidc-groups-claim', key: 'oidcGroupsClaim', kind: maybe(text), default: undefined, section: 'Authentication', target: 'oidc.groupsClaim',
    help: 'If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.'
  }),
  flag({
    name: 'oidc-groups-prefix', key: 'oidcGroupsPrefix', kind: maybe(text), default: undefined, section: 'Authentication', target: 'oidc.groupsPrefix',
    help: 'If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.'
  }),
  flag({
    name: 'oidc-required-claim', key: 'oidcRequiredClaims', kind: keyValues('key=value'), default: {}, section: 'Authentication', target: 'oidc.requiredClaims',
    help: 'A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.'
  }),
  flag({
    name: 'oidc-ca-file', key: 'oidcCaFile', kind: maybe(text), default: undefined, readsFile: true, section: 'Authentication', target: 'oidc.caPem',
    help: 'If set, the OpenID server\'s certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host\'s root CA set will be used.'
  }),
  flag({
    name: 'oidc-signing-algs', key: 'oidcSigningAlgs', kind: maybe(strings), default: undefined, defaultText: 'RS256', section: 'Authentication', target: 'oidc.signingAlgs',
    help: 'Comma-separated list of allowed JOSE asymmetric signing algorithms. JWTs with a supported \'alg\' header values are: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512.'
  })
] as const

const PROXY_AND_WEBHOOK_FLAGS = [
  flag({
    name: 'authentication-token-webhook-config-file', key: 'authenticationTokenWebhookConfigFile', kind: maybe(text), default: undefined, section: 'Authentication', target: 'tokenWebhook.configFile',
    help: 'File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.'
  }),
  flag({
    name: 'authentication-token-webhook-version', key: 'authenticationTokenWebhookVersion', kind: oneOf(WEBHOOK_VERSIONS, 'want v1 or v1beta1'), default: 'v1beta1', section: 'Authentication', target: 'tokenWebhook.version',
    help: 'The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.'
  }),
  flag({
    name: 'authentication-token-webhook-cache-ttl', key: 'authenticationTokenWebhookCacheTtlMs', kind: duration, default: 2 * 60_000, section: 'Authentication', target: 'tokenWebhook.cacheTtlMs',
    help: 'The duration to cache responses from the webhook token authenticator.'
  }),
  flag({
    name: 'requestheader-client-ca-file', key: 'requestheaderClientCaFile', kind: maybe(text), default: undefined, readsFile: true, section: 'Authentication', target: 'requestHeader.clientCAPem',
    help: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.'
  }),
  flag({
    name: 'requestheader-allowed-names', key: 'requestheaderAllowedNames', kind: strings, default: [], section: 'Authentication', target: 'requestHeader.allowedNames',
    help: 'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.'
  }),
  flag({
    name: 'requestheader-username-headers', key: 'requestheaderUsernameHeaders', kind: strings, default: [], section: 'Authentication', target: 'requestHeader.usernameHeaders',
    help: 'List of request headers to inspect for usernames. X-Remote-User is common.'
  }),
  flag({
    name: 'requestheader-uid-headers', key: 'requestheaderUidHeaders', kind: strings, default: [], section: 'Authentication', target: 'requestHeader.uidHeaders',
    help: 'List of request headers to inspect for UIDs. X-Remote-Uid is suggested.'
  }),
  flag({
    name: 'requestheader-group-headers', key: 'requestheaderGroupHeaders', kind: strings, default: [], section: 'Authentication', target: 'requestHeader.groupHeaders',
    help: 'List of request headers to inspect for groups. X-Remote-Group is suggested.'
  }),
  flag({
    name: 'requestheader-extra-headers-prefix', key: 'requestheaderExtraHeadersPrefix', kind: strings, default: [], section: 'Authentication', target: 'requestHeader.extraHeadersPrefix',
    help: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.'
  })
] as const

export const AUTHENTICATION_FLAGS = [
  flag({
    name: 'anonymous-auth', key: 'anonymousAuth', kind: bool, default: true, section: 'Authentication', target: 'anonymousAuth',
    help: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.'
  }),
  flag({
    name: 'client-ca-file', key: 'clientCaFile', kind: maybe(text), default: undefined, readsFile: true, section: 'Authentication', target: 'tls.clientCA',
    help: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate. The cluster CA always is.'
  }),
  flag({
    name: 'token-auth-file', key: 'tokenAuthFile', kind: maybe(text), default: undefined, section: 'Authentication', target: 'tokenAuthFile',
    help: 'If set, the file that will be used to secure the secure port of the API server via token authentication.'
  }),
  flag({
    name: 'enable-bootstrap-token-auth', key: 'enableBootstrapTokenAuth', kind: bool, default: false, section: 'Authentication', target: 'enableBootstrapTokenAuth',
    help: 'Enable to allow secrets of type \'bootstrap.svc.io/token\' in the \'svc-system\' namespace to be used for TLS bootstrapping authentication.'
  }),
  ...SERVICE_ACCOUNT_FLAGS,
  ...OIDC_FLAGS,
  ...PROXY_AND_WEBHOOK_FLAGS
] as const
