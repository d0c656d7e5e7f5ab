// The fault harness's checker, on histories broken on purpose: it must name each violation, and
// find none in the history it was given whole.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { check, digest, type ViolationKind } from '../../faults/checker.js'
import type { History, LogEntry, WriteRecord } from '../../faults/history.js'

const PREFIX = '/registry/core/configmaps/faults/'

function entry (revision: number, type: string, name: string, id: string, body = `body of ${id}`): LogEntry {
  return {
    revision,
    key: PREFIX + name,
    type,
    value: JSON.stringify({ kind: 'ConfigMap', metadata: { name, resourceVersion: String(revision) }, data: { id, body, sum: digest(body) } })
  }
}

function write (id: string, name: string, op: WriteRecord['op'], outcome: WriteRecord['outcome'], revision?: number): WriteRecord {
  return { id, name, op, sum: digest(`body of ${id}`), outcome, revision, server: 0 }
}

/** A run without fault: three writes, one uncertain one that landed, a watch, a resume, a list, a 410. */
function sound (): History {
  return {
    prefix: PREFIX,
    log: [
      entry(10, 'ADDED', 'a', 'w1'),
      { revision: 11, key: '/registry/core/namespaces/faults', type: 'MODIFIED', value: '{}' },
      entry(12, 'ADDED', 'b', 'w2'),
      entry(13, 'MODIFIED', 'a', 'w3'),
      entry(14, 'MODIFIED', 'b', 'w4')
    ],
    writes: [
      write('w1', 'a', 'create', 'acked', 10),
      write('w2', 'b', 'create', 'acked', 12),
      write('w3', 'a', 'patch', 'uncertain'),
      write('w4', 'b', 'patch', 'acked', 14),
      write('w5', 'c', 'create', 'uncertain'),
      write('w6', 'd', 'create', 'failed')
    ],
    watches: [
      { watcher: 'p0', from: 9, resumed: false, events: [{ type: 'ADDED', revision: 10, name: 'a', id: 'w1' }, { type: 'ADDED', revision: 12, name: 'b', id: 'w2' }], expired: false, startedAt: 100, endedAt: 200 },
      { watcher: 'p0', from: 12, resumed: true, events: [{ type: 'MODIFIED', revision: 13, name: 'a', id: 'w3' }, { type: 'MODIFIED', revision: 14, name: 'b', id: 'w4' }], expired: false, startedAt: 210, endedAt: 300 },
      { watcher: 'p1', from: 10, resumed: true, events: [], expired: true, startedAt: 400, endedAt: 401 }
    ],
    lists: [
      { watcher: 'p1', revision: 12, continues: [{ expired: false, startedAt: 150 }], items: [{ name: 'a', id: 'w1', revision: 10 }, { name: 'b', id: 'w2', revision: 12 }] },
      { watcher: 'p1', revision: 11, continues: [{ expired: true, startedAt: 390 }] }
    ],
    compactions: [{ revision: 12, doneAt: 350 }],
    reached: [{ watcher: 'p0', revision: 20 }, { watcher: 'p1', revision: 20 }]
  }
}

function kinds (h: History): ViolationKind[] {
  return check(h).violations.map(v => v.kind)
}

test('a sound history: no violation, and the figures count what happened', () => {
  const { violations, figures } = check(sound())
  assert.deepEqual(violations, [])
  assert.deepEqual(figures, {
    acked: 3, uncertain: 2, uncertainPresent: 1, failed: 1, lost: 0, eventsChecked: 4, gaps: 0, duplicates: 0,
    outOfOrder: 0, resumes: 2, wrongResumes: 0, expired: 2, listsChecked: 1, compactions: 1
  })
})

test('an acknowledged write missing from the log is lost', () => {
  const h = sound()
  h.log = h.log.filter(e => e.revision !== 14)
  h.watches[1]!.events.pop()
  const r = check(h)
  assert.deepEqual(r.violations.map(v => v.kind), ['lost'])
  assert.equal(r.figures.lost, 1)
})

test('an acknowledged write logged at another revision than it answered is misplaced', () => {
  const h = sound()
  h.writes[3]!.revision = 15
  assert.deepEqual(kinds(h), ['misplaced'])
})

test('an uncertain write logged torn is partial; one logged whole or not at all is fine', () => {
  const h = sound()
  h.log[3] = { ...h.log[3]!, value: h.log[3]!.value.replace('body of w3', 'body of') }
  assert.deepEqual(kinds(h), ['partial'])
  const cut = sound()
  cut.log[3] = { ...cut.log[3]!, value: cut.log[3]!.value.slice(0, 40) }
  // A value that does not parse: torn, and its id cannot be found, so the watch that saw it differs too.
  assert.ok(kinds(cut).includes('content'))
})

test('a write the server refused must not be in the log, nor one no writer sent, nor one twice', () => {
  const refused = sound()
  refused.log.push(entry(15, 'ADDED', 'd', 'w6'))
  assert.deepEqual(kinds(refused), ['refused-but-written'])
  const phantom = sound()
  phantom.log.push(entry(15, 'ADDED', 'e', 'w9'))
  assert.deepEqual(kinds(phantom), ['phantom'])
  const twice = sound()
  twice.log.push(entry(15, 'ADDED', 'c', 'w5'), entry(16, 'MODIFIED', 'c', 'w5'))
  assert.deepEqual(kinds(twice), ['twice'])
})

test('a watch that skips an event has a gap', () => {
  const h = sound()
  h.watches[0]!.events.splice(0, 1)
  const r = check(h)
  assert.deepEqual(r.violations.map(v => v.kind), ['gap'])
  assert.equal(r.figures.gaps, 1)
})

test('a watch that delivers an event twice has a duplicate', () => {
  const h = sound()
  h.watches[0]!.events.push({ type: 'ADDED', revision: 12, name: 'b', id: 'w2' })
  const r = check(h)
  assert.deepEqual(r.violations.map(v => v.kind), ['duplicate'])
  assert.equal(r.figures.duplicates, 1)
  // The resume point itself delivered again is a duplicate too.
  const again = sound()
  again.watches[1]!.events.unshift({ type: 'ADDED', revision: 12, name: 'b', id: 'w2' })
  assert.deepEqual(kinds(again), ['duplicate'])
})

test('a watch that delivers events out of order is caught', () => {
  const h = sound()
  // Reversed, the first event skips the one before it: a gap, whatever follows.
  h.watches[0]!.events.reverse()
  assert.deepEqual(kinds(h), ['gap'])
  // An older revision after a newer one, not delivered before, is out of order.
  h.watches[0]!.events = []
  h.watches[1]!.events = [{ type: 'MODIFIED', revision: 13, name: 'a', id: 'w3' }, { type: 'ADDED', revision: 10, name: 'a', id: 'w1' }]
  const r = check(h)
  assert.deepEqual(r.violations.map(v => v.kind), ['out-of-order'])
  assert.equal(r.figures.outOfOrder, 1)
})

test('a resumed watch that does not start right after its revision is a wrong resume', () => {
  const h = sound()
  h.watches[1]!.events.shift()
  const r = check(h)
  assert.deepEqual(r.violations.map(v => v.kind), ['resume'])
  assert.equal(r.figures.wrongResumes, 1)
})

test('an event whose object differs from the log is wrong content', () => {
  const h = sound()
  h.watches[1]!.events[0]!.id = 'w1'
  assert.deepEqual(kinds(h), ['content'])
})

test('a watch or continue below a compaction that committed before it was sent must be 410', () => {
  const watch = sound()
  watch.watches[2]!.expired = false
  assert.deepEqual(kinds(watch), ['not-expired'])
  const events = sound()
  events.watches[2]!.events = [{ type: 'ADDED', revision: 12, name: 'b', id: 'w2' }]
  assert.deepEqual(kinds(events), ['not-expired'])
  const cont = sound()
  cont.lists[1]!.continues[0]!.expired = false
  cont.lists[1]!.continues[0]!.startedAt = 360
  assert.deepEqual(kinds(cont), ['not-expired'])
  // Sent before the compaction was known to have committed: either answer is allowed.
  const early = sound()
  early.lists[1]!.continues[0] = { expired: false, startedAt: 340 }
  assert.deepEqual(kinds(early), [])
})

test('a completed list must be the log at its revision', () => {
  const missing = sound()
  missing.lists[0]!.items!.pop()
  assert.deepEqual(kinds(missing), ['list'])
  const stale = sound()
  stale.lists[0]!.items![0] = { name: 'a', id: 'w3', revision: 13 }
  assert.deepEqual(kinds(stale), ['list'])
})

test('a watcher that never reaches the end of the log has stalled', () => {
  const h = sound()
  h.reached[0]!.revision = 13
  assert.deepEqual(kinds(h), ['stalled'])
})
