// `npm test`: runs test/**/*.test.ts (or the files and directories given) with node:test,
// against DATABASE_URL when set, else against an embedded PostgreSQL started for the run.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmbeddedPostgres } from '../storage/embedded.js'

async function testFiles (path: string): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path]
  const files: string[] = []
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const full = join(path, entry.name)
    if (entry.isDirectory()) files.push(...await testFiles(full))
    else if (entry.name.endsWith('.test.ts')) files.push(full)
  }
  return files.sort()
}

async function provideDatabase (): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '') return undefined
  const dir = await mkdtemp(join(tmpdir(), 'apiserver-test-'))
  // On a signal the process may end before `finally` runs; the database's own exit hook stops it.
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
  try {
    // A throwaway cluster: durability only costs time here.
    const server = await startEmbeddedPostgres(dir, { settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } })
    process.env.DATABASE_URL = server.url
    console.error(`# embedded PostgreSQL for this run at ${server.url.replace(/:[^:@/]*@/, ':***@')}`)
    return async () => {
      await server.stop()
      await rm(dir, { recursive: true, force: true })
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    if (process.env.CI === 'true') {
      console.error('FATAL: CI=true but no database: DATABASE_URL is unset and the embedded PostgreSQL did not start')
      throw err
    }
    console.error(`WARNING: no database (DATABASE_URL unset, embedded PostgreSQL failed: ${(err as Error).message}); database tests will fail`)
    return undefined
  }
}

async function main (): Promise<number> {
  const args = process.argv.slice(2)
  const files = (await Promise.all((args.length > 0 ? args : ['test']).map(testFiles))).flat()
  const stopDatabase = await provideDatabase()
  try {
    const reporters = ['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout',
      '--test-reporter', new URL('./reporters/failures.mjs', import.meta.url).href, '--test-reporter-destination', 'stderr']
    const failuresFile = join(tmpdir(), `apiserver-test-failures-${process.pid}`)
    rmSync(failuresFile, { force: true })
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', '--test-force-exit', ...reporters, ...files],
      { stdio: 'inherit', env: { ...process.env, TEST_FAILURES_FILE: failuresFile } })
    const forward = (signal: NodeJS.Signals): void => { child.kill(signal) }
    process.on('SIGINT', forward)
    process.on('SIGTERM', forward)
    const code = await new Promise<number>((resolve) => {
      child.on('exit', (code, signal) => resolve(code ?? (signal !== null ? 1 : 0)))
    })
    if (existsSync(failuresFile)) {
      console.error(`\n# failed tests:\n${readFileSync(failuresFile, 'utf8')}`)
      rmSync(failuresFile, { force: true })
    }
    return code
  } finally {
    await stopDatabase?.()
  }
}

main().then(code => process.exit(code), (err: unknown) => {
  console.error(err)
  process.exit(1)
})
