// Transpiles the server's TypeScript into dist/, one JavaScript file per source file, so the
// server starts on plain `node` without compiling at every start; and bundles the server with
// its packages into dist/bundle/, which is what `npm start` runs. Plain JavaScript (not run
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
/** The bundle `npm start` runs: its entry, and the chunks its dynamic imports load. */
const BUNDLE = join(OUT, 'bundle')
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
// Start-up: loaded module by module, the server's ~700 modules cost Node's loader (resolving,
// reading, the CommonJS lexer) about half of what loading them costs at all (bench/README.md).
// One bundle is read and compiled as a few files. Its dynamic imports are chunks of their own
// (splitting), so the entry still starts PostgreSQL before the app's modules are loaded.
const bundled = await build({
  absWorkingDir: ROOT,
  entryPoints: { server: 'bin/server.ts' },
  outdir: BUNDLE,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // pg's optional native binding: required only when asked for, never by this server.
  external: ['pg-native'],
  // The packages written as CommonJS require Node's modules and read their own location.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; import { fileURLToPath as __fileURLToPath } from 'node:url';" +
      ' const require = __createRequire(import.meta.url); const __filename = __fileURLToPath(import.meta.url);' +
      " const __dirname = __fileURLToPath(new URL('.', import.meta.url));"
  },
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  plugins: [ownModuleUrl(), nodeOnlyPg()]
})

/**
 * pg asks at load whether it runs in a Cloudflare Worker; on Node 20, which has no `navigator`,
 * by constructing a fetch `Response`, which loads Node's whole fetch implementation (about 20 ms
 * of the start). The bundle runs on Node only: the answer is no.
 */
function nodeOnlyPg () {
  const probe = 'function isCloudflareRuntime() {'
  return {
    name: 'node-only-pg',
    setup (b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8')
        if (!text.includes(probe)) {
          return { contents: text, loader: 'js', warnings: [{ text: `pg's ${probe} is gone: the bundle no longer skips it (scripts/build.mjs)` }] }
        }
        return { contents: text.replace(probe, `${probe} return false;`), loader: 'js' }
      })
    }
  }
}

/**
 * Inside the bundle, `import.meta.url` would name the chunk, not the module: each of our modules
 * gets the URL its own file has in dist/ (where its assets are copied), relative to the chunk,
 * which is in BUNDLE whichever chunk it is.
 */
function ownModuleUrl () {
  return {
    name: 'own-module-url',
    setup (b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8')
        if (args.path.includes('/node_modules/') || !text.includes('import.meta.url')) return undefined
        const own = relative(BUNDLE, join(OUT, relative(ROOT, args.path))).replace(/\.ts$/, '.js')
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`), loader: 'ts' }
      })
    }
  }
}

const built = new Set([...Object.keys(metafile.outputs), ...Object.keys(bundled.metafile.outputs)].map(f => join(ROOT, f)))
for (const asset of ASSETS) cpSync(join(ROOT, asset), join(OUT, asset), { recursive: true })
for (const file of assets) built.add(join(OUT, relative(ROOT, file)))
// Files are overwritten in place rather than dist/ wiped first, so a server already running
// from dist/ keeps its modules; but one whose source is gone must not linger.
for (const file of filesUnder(OUT)) if (!built.has(file)) rmSync(file)
writeFileSync(STAMP, stamp)
