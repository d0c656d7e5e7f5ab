// Transpiles the server's TypeScript into dist/, one JavaScript file per source file, so the
// server starts on plain `node` without compiling at every start. Plain JavaScript (not run
// through tsx) so that the build itself costs only Node's start-up, and esbuild's when a
// source changed: `npm start` runs this every time.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = join(ROOT, 'dist')
/** What the last build was made from; equal to what is there now, there is nothing to do. */
const STAMP = join(OUT, '.build-stamp')
/** The directories the server's code lives in (tests and benchmarks run from sources). */
const SOURCE_DIRS = ['bin', 'server', 'machinery', 'plugins', 'resources', 'storage', 'admission', 'auth', 'controllers']
/** Files the code reads relative to its own module (`new URL(..., import.meta.url)`). */
const ASSETS = ['plugins/protobuf/proto', 'plugins/openapi/openapiv2.proto', 'package.json']

/** Every file at or under `path`, absolute. */
function filesUnder (path) {
  if (!existsSync(path)) return []
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter(e => !e.isDirectory())
    .map(e => join(e.parentPath ?? e.path, e.name))
}

const sources = SOURCE_DIRS.flatMap(dir => filesUnder(join(ROOT, dir)))
  .filter(f => f.endsWith('.ts') && !f.endsWith('.d.ts'))
const assets = ASSETS.flatMap(a => filesUnder(join(ROOT, a)))

// Every input by path, size and modification time, and this script itself: a checkout, an
// edit or a deleted file changes it.
const inputs = [...sources, ...assets, fileURLToPath(import.meta.url)].sort()
const stamp = JSON.stringify(inputs.map((f) => {
  const { size, mtimeMs } = statSync(f)
  return [relative(ROOT, f), size, mtimeMs]
}))
if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === stamp) process.exit(0)

rmSync(STAMP, { force: true })
const { build } = await import('esbuild')
const { metafile } = await build({
  absWorkingDir: ROOT,
  entryPoints: sources,
  outdir: OUT,
  outbase: ROOT,
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning'
})
const built = new Set(Object.keys(metafile.outputs).map(f => join(ROOT, f)))
for (const asset of ASSETS) cpSync(join(ROOT, asset), join(OUT, asset), { recursive: true })
for (const file of assets) built.add(join(OUT, relative(ROOT, file)))
// Files are overwritten in place rather than dist/ wiped first, so a server already running
// from dist/ keeps its modules; but one whose source is gone must not linger.
for (const file of filesUnder(OUT)) if (!built.has(file)) rmSync(file)
writeFileSync(STAMP, stamp)
