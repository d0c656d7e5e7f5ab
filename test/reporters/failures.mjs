// A second node:test reporter: it appends each failed test, with its file and the first lines of
// its error, to the file test/run.ts names, which prints them after the run, so the end of a long
// log (all a CI page shows) says what failed. Written as it goes: --test-force-exit ends the
// runner before a reporter's last yield.
import { appendFileSync } from 'node:fs'

export default async function * failures (source) {
  const into = process.env.TEST_FAILURES_FILE
  for await (const event of source) {
    if (event.type !== 'test:fail' || into === undefined) continue
    const { name, file, details, todo, skip } = event.data
    // A test marked todo may fail without failing the run.
    if ((todo !== undefined && todo !== false) || (skip !== undefined && skip !== false)) continue
    // A suite fails when a test inside it fails; the test itself is the line worth reading.
    if (details?.error?.failureType === 'subtestsFailed') continue
    const error = details?.error?.cause ?? details?.error
    const message = String(error?.message ?? error ?? '').split('\n').slice(0, 8).join('\n    ')
    appendFileSync(into, `# FAILED ${file ?? '?'}: ${name}\n    ${message}\n`)
  }
}
