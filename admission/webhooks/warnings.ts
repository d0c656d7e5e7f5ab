// Webhook warnings on their way to `Warning: 299` headers: printable text only; once the
// request's warnings pass 4096 characters, long ones are cut to 256 and further ones dropped.
const MAX_TOTAL = 4096
const TRUNCATE_TO = 256

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f]/

export function addWarnings (target: string[], incoming: readonly string[]): void {
  for (const raw of incoming) {
    if (raw === '' || UNPRINTABLE.test(raw)) continue
    let total = target.reduce((n, w) => n + w.length, 0)
    let text = raw
    if (total + text.length > MAX_TOTAL) {
      for (let i = 0; i < target.length; i++) if (target[i]!.length > TRUNCATE_TO) target[i] = target[i]!.slice(0, TRUNCATE_TO)
      if (text.length > TRUNCATE_TO) text = text.slice(0, TRUNCATE_TO)
      total = target.reduce((n, w) => n + w.length, 0)
      if (total + text.length > MAX_TOTAL) continue
    }
    target.push(text)
  }
}
