import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { describe, it } from 'node:test'
import { cpuDuring, processCpuMs, processWaitMs, splitWaits, waitReaders } from '../../bench/cpu.js'

const onLinux = existsSync('/proc/self/task')

/** Keeps this thread on a core (or wanting one) for `ms`. */
function spin (ms: number): void {
  const until = Date.now() + ms
  while (Date.now() < until) { /* busy */ }
}

describe('bench CPU readings', () => {
  it('reads CPU and run-queue wait in one cpuDuring and parts them by name', async () => {
    let cpu = 0
    let wait = 100
    const done = new Promise<void>(resolve => setTimeout(() => { cpu = 7; wait = 103; resolve() }, 20))
    const { cpuMs } = await cpuDuring({ server: () => cpu, ...waitReaders({ server: () => wait }) }, 0, done)
    assert.deepEqual(splitWaits(cpuMs), { cpuMs: { server: 7 }, waitMs: { server: 3 } })
  })

  it('counts the time a process waits for a core when there are more busy threads than cores', { skip: !onLinux && 'no /proc' }, async (t) => {
    // One more spinner than cores, besides this thread: the scheduler has to keep someone waiting.
    const spinners = Array.from({ length: availableParallelism() + 1 }, () =>
      spawn(process.execPath, ['-e', 'const u = Date.now() + 5000; while (Date.now() < u);'], { stdio: 'ignore' }))
    t.after(() => { for (const s of spinners) s.kill('SIGKILL') })
    await new Promise(resolve => setTimeout(resolve, 100))
    const [wait0, cpu0] = [processWaitMs('self'), processCpuMs(process.pid)]
    spin(600)
    const [waited, ran] = [processWaitMs('self') - wait0, processCpuMs(process.pid) - cpu0]
    assert.ok(waited > 60, `waited ${waited} ms for a core in 600 ms among ${spinners.length} spinners (ran ${ran} ms)`)
    assert.ok(processWaitMs(2 ** 30) === 0, 'a process that does not exist has waited 0 ms')
  })
})
