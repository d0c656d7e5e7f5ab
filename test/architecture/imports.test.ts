// The import rule between the top-level folders (ARCHITECTURE.md, "The import rule"): every
// relative import of every .ts file, type-only ones included, read with TypeScript's own
// pre-processor, is held against the layers below. Known breaks of the rule are listed in
// KNOWN_VIOLATIONS with their reason; an entry that no longer matches an import fails too, so
// the list only shrinks.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

// What each folder may import besides itself. The order is the layering, bottom up.
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  // The vocabulary: kinds, Status errors, naming, validation. Imports no other folder.
  resources: [],
  // The store contract, the PostgreSQL store, watch caches, the embedded PostgreSQL.
  storage: ['resources'],
  // Apply, patch, selectors, schema check: libraries over the kinds' schemas, no Fastify.
  machinery: ['resources', 'storage'],
  // Authenticators, authorizers, RBAC, PKI.
  auth: ['resources', 'storage', 'machinery'],
  // The admission chain and its plugins (webhook transport and RBAC rules come from auth/).
  admission: ['resources', 'storage', 'machinery', 'auth'],
  // Generic Fastify machinery and the REST layer.
  plugins: ['resources', 'storage', 'machinery', 'auth'],
  // Control loops: they write through the store contract, never through the REST layer.
  controllers: ['resources', 'storage', 'machinery', 'auth', 'admission'],
  // The composition root: everything below it.
  server: ['resources', 'storage', 'machinery', 'auth', 'admission', 'plugins', 'controllers'],
  // The command line: the composition root and what its flags name.
  bin: ['resources', 'storage', 'machinery', 'auth', 'admission', 'plugins', 'controllers', 'server'],
  // Benchmarks and the fault harness drive the whole server; they share nothing with test/.
  bench: ['resources', 'storage', 'machinery', 'auth', 'admission', 'plugins', 'controllers', 'server', 'bin'],
  faults: ['resources', 'storage', 'machinery', 'auth', 'admission', 'plugins', 'controllers', 'server', 'bin'],
  // Tests may reach everything, the benchmark's and fault harness's code included.
  test: ['resources', 'storage', 'machinery', 'auth', 'admission', 'plugins', 'controllers', 'server', 'bin', 'bench', 'faults']
}

// Imports that break the rule today, each `<importing file> -> <imported file>` (paths from the
// repository root, the imported one as written, .js) with why it is still here. Empty it as
// the imports go.
const KNOWN_VIOLATIONS: Readonly<Record<string, string>> = {
}

// Top-level directories that hold no TypeScript of the server's (or are not ours to check).
const NOT_SOURCE = new Set(['node_modules', 'dist', 'data', 'docs', 'deploy', 'scripts', '.git', '.ci'])

const posix = (path: string): string => path.split(sep).join('/')

function tsFiles (dir: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') files.push(...tsFiles(full))
    } else if (entry.name.endsWith('.ts')) files.push(full)
  }
  return files
}

interface Import { from: string, to: string, spec: string }

/** Every relative import, re-export and dynamic import of a file, resolved from the root. */
function importsOf (file: string): Import[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return info.importedFiles
    .filter(ref => ref.fileName.startsWith('.'))
    .map(ref => ({ from: posix(relative(ROOT, file)), to: posix(relative(ROOT, resolve(dirname(file), ref.fileName))), spec: ref.fileName }))
}

const topFolder = (path: string): string => path.split('/')[0]

const topLevelDirs = readdirSync(ROOT, { withFileTypes: true })
  .filter(entry => entry.isDirectory() && !entry.name.startsWith('.') && !NOT_SOURCE.has(entry.name))
  .map(entry => entry.name)
  .filter(name => tsFiles(join(ROOT, name)).length > 0)

const imports = topLevelDirs.filter(name => name in MAY_IMPORT).flatMap(name => tsFiles(join(ROOT, name)).flatMap(importsOf))

describe('the import rule between folders', () => {
  it('knows every top-level folder that holds TypeScript', () => {
    const unknown = topLevelDirs.filter(name => !(name in MAY_IMPORT))
    assert.deepEqual(unknown, [], 'a new top-level folder needs its place in MAY_IMPORT (and in ARCHITECTURE.md)')
  })

  it('reads the imports it checks', () => {
    // A parser that found nothing would pass everything.
    assert.ok(imports.length > 1000, `only ${imports.length} relative imports found`)
    assert.ok(imports.some(i => i.from === 'server/app.ts' && topFolder(i.to) === 'plugins'))
    assert.ok(imports.some(i => i.spec.startsWith('..') && i.from.startsWith('machinery/')))
  })

  it('no relative import leaves the repository', () => {
    const outside = imports.filter(i => i.to.startsWith('..'))
    assert.deepEqual(outside.map(i => `${i.from} -> ${i.spec}`), [])
  })

  it('every folder imports only the layers below it', () => {
    const broken: string[] = []
    for (const i of imports) {
      const from = topFolder(i.from)
      const to = topFolder(i.to)
      if (from === to) continue
      if (!(to in MAY_IMPORT)) continue // package.json and the like, read by path
      if (MAY_IMPORT[from].includes(to)) continue
      const key = `${i.from} -> ${i.to}`
      if (key in KNOWN_VIOLATIONS) continue
      broken.push(`${key} (${from}/ may import only ${MAY_IMPORT[from].join(', ') || 'itself'})`)
    }
    assert.deepEqual(broken, [])
  })

  it('every known violation is still there (remove the entries that are gone)', () => {
    const present = new Set(imports.map(i => `${i.from} -> ${i.to}`))
    const gone = Object.keys(KNOWN_VIOLATIONS).filter(key => !present.has(key))
    assert.deepEqual(gone, [])
  })

  it('only bin/, test/, bench/ and faults/ import the composition root', () => {
    const importers = new Set(imports.filter(i => topFolder(i.to) === 'server' && topFolder(i.from) !== 'server').map(i => topFolder(i.from)))
    for (const folder of importers) assert.ok(['bin', 'test', 'bench', 'faults'].includes(folder), `${folder}/ imports server/`)
  })
})
