// The authenticator family, in the order the chain asks them (bearer-token methods in this order
// too); anonymous comes last whatever its place, as the chain puts it there.
import type { FamilyEntry } from '../../resources/plugin-family.js'
import requestHeader, { type RequestHeaderOptions } from './request-header.js'
import x509 from './x509.js'
import tokenFile from './token-file.js'
import bootstrapToken from './bootstrap-token.js'
import serviceAccount from './service-account.js'
import oidc, { type OidcOptions } from './oidc.js'
import tokenWebhook, { type TokenWebhookOptions } from './token-webhook.js'
import anonymous from './anonymous.js'

/** What the authenticators read of the server's settings (the --authentication flags). */
export interface AuthenticationSettings {
  /** HTTPS; client certificates are verified against `clientCA` when it is set. */
  tls?: { cert: string, key: string, clientCA?: string }
  /** --token-auth-file */
  tokenAuthFile?: string
  /** --anonymous-auth */
  anonymousAuth?: boolean
  /** --enable-bootstrap-token-auth */
  enableBootstrapTokenAuth?: boolean
  /** --oidc-* flags; OpenID Connect is on when issuerUrl is set. */
  oidc?: OidcOptions
  /** --authentication-token-webhook-* flags. */
  tokenWebhook?: TokenWebhookOptions
  /** --requestheader-* flags: the authenticating proxy. */
  requestHeader?: RequestHeaderOptions
}

const when = (on: boolean | undefined): object | undefined => on === true ? {} : undefined

export const AUTHENTICATORS: ReadonlyArray<FamilyEntry<AuthenticationSettings>> = [
  { name: 'request-header', plugin: requestHeader, options: s => s.requestHeader },
  { name: 'x509', plugin: x509, options: s => when(s.tls?.clientCA !== undefined) },
  { name: 'token-file', plugin: tokenFile, options: s => s.tokenAuthFile === undefined ? undefined : { path: s.tokenAuthFile } },
  { name: 'bootstrap-token', plugin: bootstrapToken, options: s => when(s.enableBootstrapTokenAuth) },
  { name: 'service-account', plugin: serviceAccount },
  { name: 'oidc', plugin: oidc, options: s => s.oidc },
  { name: 'token-webhook', plugin: tokenWebhook, options: s => s.tokenWebhook },
  { name: 'anonymous', plugin: anonymous, options: s => when(s.anonymousAuth) }
]
