// The flag table against what is written about it: the README's flags table names every flag
// and no other, with the table's defaults, and --help lists every flag.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { FLAG_TABLE, type Flag } from '../../bin/flags/index.js'
import { parseFlags } from '../../bin/flags.js'
import { usage } from '../../bin/help.js'

const README = new URL('../../README.md', import.meta.url)

interface ReadmeRow { flags: string[], defaults: string, line: string }

/** The rows of the table headed `| flag | default | meaning |`. */
function readmeFlagRows (): ReadmeRow[] {
  const lines = readFileSync(README, 'utf8').split('\n')
  const header = lines.findIndex(l => /^\|\s*flag\s*\|\s*default\s*\|\s*meaning\s*\|$/.test(l.trim()))
  assert.notEqual(header, -1, 'README.md has a flags table headed | flag | default | meaning |')
  const rows: ReadmeRow[] = []
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break
    const cells = line.split('|').slice(1, -1).map(c => c.trim())
    rows.push({ flags: [...cells[0]!.matchAll(/`--([a-z0-9-]+)`/g)].map(m => m[1]!), defaults: cells[1]!, line })
  }
  return rows
}

const byName = new Map(FLAG_TABLE.map(f => [f.name, f]))

test('the README\'s flags table names every flag of the table, and no other', () => {
  const documented = readmeFlagRows().flatMap(r => r.flags)
  assert.deepEqual([...documented].sort(), [...new Set(documented)].sort(), 'no flag in two rows')
  assert.deepEqual(FLAG_TABLE.map(f => f.name).filter(n => !documented.includes(n)), [], 'flags missing from the README')
  assert.deepEqual(documented.filter(n => !byName.has(n)), [], 'README rows for flags the server does not take')
})

/** Whether the README's `cell` says what the table says `f`'s default is. */
function sameDefault (f: Flag, cell: string): boolean {
  const value = typeof f.default === 'function' ? undefined : f.default
  if (cell === '') return f.defaultText === undefined && (value === undefined || f.kind.show(value) === undefined)
  if (f.defaultText !== undefined) return cell === f.defaultText
  try {
    return JSON.stringify(f.kind.parse(f.name, cell, value)) === JSON.stringify(value)
  } catch {
    return false
  }
}

test('the README\'s defaults are the table\'s: one per flag of a row, or one for them all', () => {
  for (const row of readmeFlagRows()) {
    const cells = row.defaults.split(', ').map(c => c.replace(/^`(.*)`$/, '$1'))
    assert.ok(cells.length === 1 || cells.length === row.flags.length, `one default, or one per flag: ${row.line}`)
    row.flags.forEach((name, i) => {
      const f = byName.get(name)
      if (f !== undefined) assert.ok(sameDefault(f, cells[cells.length === 1 ? 0 : i]!), `--${name}'s default in the README is the table's: ${row.line}`)
    })
  }
})

test('--help lists every flag, each once, with its type', () => {
  const text = usage()
  for (const f of FLAG_TABLE) {
    const line = new RegExp(`^ +(-${f.short ?? ''}, )?--${f.name}${f.kind.type === '' ? '' : ` ${f.kind.type}`}$`, 'gm')
    assert.equal(text.match(line)?.length, 1, `--${f.name} in --help`)
  }
  assert.match(text, /^Global flags:\n\n {2}-h, --help\n/m)
})

test('each entry is one flag: a name and a key of its own, and a default its kind can print', () => {
  assert.equal(new Set(FLAG_TABLE.map(f => f.name)).size, FLAG_TABLE.length)
  assert.equal(new Set(FLAG_TABLE.map(f => f.key)).size, FLAG_TABLE.length)
  const defaults = parseFlags([], {}) as unknown as Record<string, unknown>
  assert.deepEqual(Object.keys(defaults).sort(), FLAG_TABLE.map(f => f.key).sort())
  // The parsed settings are fresh each time: changing one parse's list leaves the next's alone.
  ;(parseFlags([], {}).controllers).push('x')
  assert.deepEqual(parseFlags([], {}).controllers, ['*'])
})

test('every form of a flag is read the same: --flag=value, --flag value, and a bool alone', () => {
  for (const f of FLAG_TABLE) {
    if (f.kind.type === '') {
      assert.deepEqual(parseFlags([`--${f.name}`], {}), parseFlags([`--${f.name}=true`], {}), f.name)
      assert.throws(() => parseFlags([`--${f.name}=maybe`], {}), new RegExp(`invalid boolean for --${f.name}: "maybe"`))
    } else {
      assert.throws(() => parseFlags([`--${f.name}`], {}), new RegExp(`flag --${f.name} needs a value`))
    }
  }
  assert.deepEqual(parseFlags(['--audit-log-path', '-'], {}), parseFlags(['--audit-log-path=-'], {}))
  assert.deepEqual(parseFlags(['--oidc-required-claim', 'a=b=c'], {}).oidcRequiredClaims, { a: 'b=c' })
  assert.throws(() => parseFlags(['--secure-port=70000'], {}), /invalid --secure-port "70000"/)
  assert.throws(() => parseFlags(['--compaction-interval=soon'], {}), /invalid duration "soon"/)
  assert.throws(() => parseFlags(['stray'], {}), /unexpected argument "stray"/)
})
