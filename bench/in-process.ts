// The real app in this process on a scratch database, its admin a bearer token: what the
// in-process tools (inject.ts, policy-cost.ts) send `fastify.inject` requests to.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../server/app.js'
import { scratchDatabase, type ScratchDatabase } from './scratch-database.js'

export interface InProcessApp {
  app: FastifyInstance
  db: ScratchDatabase
  /** The admin's (`system:masters`) headers for a JSON request. */
  headers: Record<string, string>
}

export async function inProcessApp (name: string): Promise<InProcessApp> {
  const db = await scratchDatabase(name)
  const dir = mkdtempSync(join(tmpdir(), `${name}-`))
  const tokenAuthFile = join(dir, 'tokens.csv')
  writeFileSync(tokenAuthFile, 'bench-token,bench,uid-bench,"system:masters"\n')
  const app = await buildApp({ databaseUrl: db.url, tokenAuthFile, compactionIntervalMs: 0 })
  await app.ready()
  await app.health.postStartHooksFinished()
  return { app, db, headers: { authorization: 'Bearer bench-token', 'content-type': 'application/json' } }
}
