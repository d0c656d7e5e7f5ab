// The authentication part of the app options, from the flags: files are read here so a
// missing or malformed one stops start-up with its name in the message.
import { readFileSync } from 'node:fs'
import { signingKeyOf } from '../auth/service-account-tokens.js'
import type { AppOptions } from '../server/app.js'
import type { Flags } from './flags.js'

const read = (flag: string, path: string): string => {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    throw new Error(`--${flag}: ${(err as Error).message}`)
  }
}

/** A token-signing key file's contents, refused at start unless an RSA or ECDSA private key. */
const readSigningKey = (flag: string, path: string): string => {
  const pem = read(flag, path)
  try {
    signingKeyOf(pem)
  } catch (err) {
    throw new Error(`--${flag} ${path}: not a PEM-encoded RSA or ECDSA private key (${(err as Error).message})`)
  }
  return pem
}

export function authOptions (f: Flags, generated: { serviceAccountKeyPem: string, caCertPem: string, caKeyPem: string }): Partial<AppOptions> {
  const o: Partial<AppOptions> = {
    apiAudiences: f.apiAudiences,
    enableBootstrapTokenAuth: f.enableBootstrapTokenAuth,
    controllers: f.controllers,
    rootCAPem: generated.caCertPem,
    serviceAccounts: {
      issuers: f.serviceAccountIssuers,
      lookup: f.serviceAccountLookup,
      signingKeyPem: f.serviceAccountSigningKeyFile === undefined ? generated.serviceAccountKeyPem : readSigningKey('service-account-signing-key-file', f.serviceAccountSigningKeyFile),
      legacySigningKeyPem: f.serviceAccountPrivateKeyFile === undefined ? undefined : readSigningKey('service-account-private-key-file', f.serviceAccountPrivateKeyFile),
      verifyKeyPems: f.serviceAccountKeyFiles.map(p => read('service-account-key-file', p))
    }
  }
  if ((f.clusterSigningCertFile === undefined) !== (f.clusterSigningKeyFile === undefined)) {
    throw new Error('--cluster-signing-cert-file and --cluster-signing-key-file must be set together')
  }
  o.clusterSigning = {
    certPem: f.clusterSigningCertFile === undefined ? generated.caCertPem : read('cluster-signing-cert-file', f.clusterSigningCertFile),
    keyPem: f.clusterSigningKeyFile === undefined ? generated.caKeyPem : read('cluster-signing-key-file', f.clusterSigningKeyFile),
    durationMs: f.clusterSigningDurationMs
  }
  if (f.oidcIssuerUrl !== undefined) {
    if (f.oidcClientId === undefined) throw new Error('--oidc-client-id is required with --oidc-issuer-url')
    o.oidc = {
      issuerUrl: f.oidcIssuerUrl,
      clientId: f.oidcClientId,
      usernameClaim: f.oidcUsernameClaim,
      usernamePrefix: f.oidcUsernamePrefix,
      groupsClaim: f.oidcGroupsClaim,
      groupsPrefix: f.oidcGroupsPrefix,
      requiredClaims: f.oidcRequiredClaims,
      caPem: f.oidcCaFile === undefined ? undefined : read('oidc-ca-file', f.oidcCaFile),
      signingAlgs: f.oidcSigningAlgs
    }
  }
  if (f.authenticationTokenWebhookConfigFile !== undefined) {
    o.tokenWebhook = {
      configFile: f.authenticationTokenWebhookConfigFile,
      version: f.authenticationTokenWebhookVersion,
      cacheTtlMs: f.authenticationTokenWebhookCacheTtlMs
    }
  }
  if (f.requestheaderClientCaFile !== undefined) {
    if (f.requestheaderUsernameHeaders.length === 0) throw new Error('--requestheader-username-headers is required with --requestheader-client-ca-file')
    o.requestHeader = {
      clientCAPem: read('requestheader-client-ca-file', f.requestheaderClientCaFile),
      allowedNames: f.requestheaderAllowedNames,
      usernameHeaders: f.requestheaderUsernameHeaders,
      uidHeaders: f.requestheaderUidHeaders,
      groupHeaders: f.requestheaderGroupHeaders,
      extraHeadersPrefix: f.requestheaderExtraHeadersPrefix
    }
  }
  return o
}
