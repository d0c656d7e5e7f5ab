// The reference's authorizer library (apiserver/pkg/cel/library/authz.go) for admission
// expressions: `authorizer.group('apps').resource('deployments').namespace('ns').check('create')
// .allowed()`, `authorizer.path('/healthz').check('get')`, `authorizer.serviceAccount(ns, name)`.
// The server's authorizer answers asynchronously and CEL evaluates synchronously, so a check not
// answered yet is recorded and stops the evaluation (AuthorizationPending); the caller asks the
// authorizer (settle) and evaluates again, the answers cached for the request as the reference's
// caching authorizer keeps them.
import type { Environment } from '@marcbachmann/cel-js'
import type { Attributes, Verdict } from '../../../resources/authorization.js'
import type { UserInfo } from '../../../resources/user-info.js'
import { SERVICE_ACCOUNTS } from '../../../resources/naming.js'

export class AuthorizationPending extends Error {
  constructor () { super('authorization check pending') }
}

interface Answer { verdict?: Verdict, error?: string }

/** One request's authorization checks: answered ones and those to ask. */
export class AuthorizerSession {
  private readonly answers = new Map<string, Answer>()
  private readonly pending = new Map<string, Attributes>()
  constructor (private readonly ask: (a: Attributes) => Promise<Verdict>) {}

  decide (attrs: Attributes): CelDecision {
    const key = JSON.stringify([attrs.user.username, attrs.user.groups, attrs.verb, attrs.isResourceRequest, attrs.path, attrs.apiGroup, attrs.resource, attrs.subresource, attrs.namespace, attrs.name])
    const answer = this.answers.get(key)
    if (answer === undefined) {
      this.pending.set(key, attrs)
      throw new AuthorizationPending()
    }
    return new CelDecision(answer.verdict?.decision === 'Allow', answer.verdict?.reason ?? '', answer.error)
  }

  /** Asks the checks an evaluation stopped at; false when there were none (evaluating again changes nothing). */
  async settle (): Promise<boolean> {
    if (this.pending.size === 0) return false
    const asked = [...this.pending]
    this.pending.clear()
    await Promise.all(asked.map(async ([key, attrs]) => {
      try {
        this.answers.set(key, { verdict: await this.ask(attrs) })
      } catch (err) {
        this.answers.set(key, { error: (err as Error).message })
      }
    }))
    return true
  }
}

/** The `authorizer` variable: checks made as `user`. */
export class CelAuthorizer {
  constructor (readonly session: AuthorizerSession, readonly user: UserInfo) {}
}
class PathCheck { constructor (readonly authz: CelAuthorizer, readonly path: string) {} }
class GroupCheck { constructor (readonly authz: CelAuthorizer, readonly group: string) {} }
class ResourceCheck {
  constructor (readonly authz: CelAuthorizer, readonly group: string, readonly resource: string,
    readonly subresource = '', readonly namespace = '', readonly name = '') {}

  with (change: Partial<Pick<ResourceCheck, 'subresource' | 'namespace' | 'name'>>): ResourceCheck {
    const next = { subresource: this.subresource, namespace: this.namespace, name: this.name, ...change }
    return new ResourceCheck(this.authz, this.group, this.resource, next.subresource, next.namespace, next.name)
  }
}
export class CelDecision { constructor (readonly allowed: boolean, readonly reason: string, readonly error: string | undefined) {} }

const T = 'kubernetes.authorization.'

export function registerAuthz (env: Environment): void {
  env.registerType(`${T}Authorizer`, { ctor: CelAuthorizer })
  env.registerType(`${T}PathCheck`, { ctor: PathCheck })
  env.registerType(`${T}GroupCheck`, { ctor: GroupCheck })
  env.registerType(`${T}ResourceCheck`, { ctor: ResourceCheck })
  env.registerType(`${T}Decision`, { ctor: CelDecision })
  env.registerFunction(`${T}Authorizer.path(string): ${T}PathCheck`, (a: CelAuthorizer, p: string) => new PathCheck(a, p))
  env.registerFunction(`${T}Authorizer.group(string): ${T}GroupCheck`, (a: CelAuthorizer, g: string) => new GroupCheck(a, g))
  env.registerFunction(`${T}Authorizer.serviceAccount(string, string): ${T}Authorizer`, (a: CelAuthorizer, ns: string, name: string) =>
    new CelAuthorizer(a.session, { username: `${SERVICE_ACCOUNTS.userPrefix}${ns}:${name}`, groups: [SERVICE_ACCOUNTS.group, `${SERVICE_ACCOUNTS.group}:${ns}`] }))
  env.registerFunction(`${T}GroupCheck.resource(string): ${T}ResourceCheck`, (g: GroupCheck, r: string) => new ResourceCheck(g.authz, g.group, r))
  env.registerFunction(`${T}ResourceCheck.subresource(string): ${T}ResourceCheck`, (c: ResourceCheck, s: string) => c.with({ subresource: s }))
  env.registerFunction(`${T}ResourceCheck.namespace(string): ${T}ResourceCheck`, (c: ResourceCheck, s: string) => c.with({ namespace: s }))
  env.registerFunction(`${T}ResourceCheck.name(string): ${T}ResourceCheck`, (c: ResourceCheck, s: string) => c.with({ name: s }))
  env.registerFunction(`${T}ResourceCheck.check(string): ${T}Decision`, (c: ResourceCheck, verb: string) => c.authz.session.decide({
    user: c.authz.user, verb, isResourceRequest: true, path: '', apiGroup: c.group, apiVersion: '*', resource: c.resource, subresource: c.subresource, namespace: c.namespace, name: c.name
  }))
  env.registerFunction(`${T}PathCheck.check(string): ${T}Decision`, (c: PathCheck, verb: string) => c.authz.session.decide({
    user: c.authz.user, verb, isResourceRequest: false, path: c.path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: ''
  }))
  env.registerFunction(`${T}Decision.allowed(): bool`, (d: CelDecision) => d.allowed)
  env.registerFunction(`${T}Decision.reason(): string`, (d: CelDecision) => d.reason)
  env.registerFunction(`${T}Decision.errored(): bool`, (d: CelDecision) => d.error !== undefined)
  env.registerFunction(`${T}Decision.error(): string`, (d: CelDecision) => d.error ?? '')
}
