// How the benchmark reads `npm start`'s commands out of package.json.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { npmStartCommands, parseNodeCommand } from '../../bench/process.js'

test('a plain node command: its flags, then the script and its arguments', () => {
  assert.deepEqual(parseNodeCommand(' node --max-semi-space-size=8 dist/bin/server.js --x 1 '),
    { env: {}, nodeArgs: ['--max-semi-space-size=8'], args: ['dist/bin/server.js', '--x', '1'] })
})

test('leading NAME=value words are that command\'s environment', () => {
  assert.deepEqual(parseNodeCommand('LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true,dirty_decay_ms:1000 node dist/bin/server.js'),
    { env: { LD_PRELOAD: 'libjemalloc.so.2', MALLOC_CONF: 'background_thread:true,dirty_decay_ms:1000' }, nodeArgs: [], args: ['dist/bin/server.js'] })
  assert.deepEqual(parseNodeCommand('EMPTY= node x.js').env, { EMPTY: '' })
})

test('an assignment after the program is an argument, not environment', () => {
  assert.deepEqual(parseNodeCommand('node x.js A=1'), { env: {}, nodeArgs: [], args: ['x.js', 'A=1'] })
})

test('commands that are not node, or need a shell, are refused', () => {
  assert.throws(() => parseNodeCommand('A=1 tsx x.ts'), /not node/)
  assert.throws(() => parseNodeCommand('A=1'), /not node/)
  assert.throws(() => parseNodeCommand('node --inspect'), /no script/)
  assert.throws(() => parseNodeCommand('A="x y" node x.js'), /needs a shell/)
  assert.throws(() => parseNodeCommand('A=$HOME node x.js'), /needs a shell/)
  assert.throws(() => parseNodeCommand('node x.js | tee log'), /needs a shell/)
})

test('prestart, then start, each split at &&, each with its own environment', () => {
  const commands = npmStartCommands({ prestart: 'node build.mjs', start: 'node a.js && X=1 node b.js' })
  assert.deepEqual(commands, [
    { env: {}, nodeArgs: [], args: ['build.mjs'] },
    { env: {}, nodeArgs: [], args: ['a.js'] },
    { env: { X: '1' }, nodeArgs: [], args: ['b.js'] }
  ])
})

test('this package\'s own start command parses', () => {
  const commands = npmStartCommands()
  assert.ok(commands.length >= 1)
  assert.match(commands[commands.length - 1]!.args[0]!, /server\.js$/)
})
