// An app on a fresh database for one test file, with token users to call it as.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppOptions } from '../../server/app.js'
import { freshDatabase } from './postgres.js'

/** Token users every test app knows: token → [user, uid, groups]. */
export const USERS = {
  admin: { token: 'admin-token', line: 'admin-token,admin,uid-admin,"system:masters"' },
  alice: { token: 'alice-token', line: 'alice-token,alice,uid-alice,"developers,qa"' },
  bob: { token: 'bob-token', line: 'bob-token,bob,uid-bob' }
} as const

export type TestUser = keyof typeof USERS

export interface TestApp {
  app: FastifyInstance
  databaseUrl: string
  /** app.inject as a user (admin by default), with JSON bodies serialised. */
  request (opts: InjectOptions & { as?: TestUser | null }): Promise<LightMyRequestResponse>
}

/** `beforeReady` runs between building and starting the app (test-only kinds register there). */
export async function buildTestApp (t: { after (fn: () => unknown): void }, opts: Partial<AppOptions> = {},
  hooks: { beforeReady?: (app: FastifyInstance) => void } = {}): Promise<TestApp> {
  // The app must close before its database is dropped; one after-hook does both in that order.
  const cleanups: Array<() => unknown> = []
  t.after(async () => { for (const fn of cleanups.reverse()) await fn() })
  const databaseUrl = opts.databaseUrl ?? await freshDatabase({ after: (fn) => { cleanups.push(fn) } })
  const dir = mkdtempSync(join(tmpdir(), 'apiserver-tokens-'))
  const tokenAuthFile = join(dir, 'tokens.csv')
  writeFileSync(tokenAuthFile, Object.values(USERS).map(u => u.line).join('\n') + '\n')
  const app = await buildApp({ compactionIntervalMs: 0, tokenAuthFile, authorizationModes: ['AlwaysAllow'], ...opts, databaseUrl })
  hooks.beforeReady?.(app)
  await app.ready()
  cleanups.push(() => app.close())
  await app.health.postStartHooksFinished()
  return {
    app,
    databaseUrl,
    request ({ as = 'admin', ...o }) {
      const headers: Record<string, string> = { ...(o.headers as Record<string, string> | undefined) }
      if (as !== null) headers.authorization = `Bearer ${USERS[as].token}`
      if (o.payload !== undefined && typeof o.payload === 'object' && !Buffer.isBuffer(o.payload) && headers['content-type'] === undefined) {
        headers['content-type'] = 'application/json'
      }
      return app.inject({ ...o, headers } as InjectOptions)
    }
  }
}
