// Durations as kubectl prints them (Age, requested durations), for kinds' table columns.

let clockReads = 0

/**
 * The time, for a table column whose value depends on it (a running Job's Duration): the rows
 * of a list asked again are kept with such cells left out, and a column that reads the time
 * here is known to need its row made afresh at every answer.
 */
export function now (): number {
  clockReads++
  return Date.now()
}

/** How many times `now` has been read: a row made while this changes reads the clock. */
export const clockReadCount = (): number => clockReads

/** k8s HumanDuration: "45s", "5m", "3h", "2d", "3y". */
export function humanDuration (ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 120) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`
  if (m < 180) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`
  if (h < 48) return `${h}h`
  const d = Math.floor(h / 24)
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`
  if (d < 365 * 2) return `${d}d`
  if (d < 365 * 8) return `${Math.floor(d / 365)}y${d % 365}d`
  return `${Math.floor(d / 365)}y`
}
