// Duplicate keys in a JSON body, which JSON.parse silently resolves to the last one; reported
// per fieldValidation (Strict refuses, Warn warns) with the field's path, as `metadata.name`.

/** Paths of repeated keys in `text`, which must be valid JSON (it has already been parsed). */
export function duplicateFields (text: string): string[] {
  const found: string[] = []
  let i = 0
  const ws = (): void => { while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++ }
  const str = (): string => {
    const start = i
    i++
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1
    i++
    return JSON.parse(text.slice(start, i)) as string
  }
  const join = (path: string, key: string): string => path === '' ? key : `${path}.${key}`
  const value = (path: string): void => {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      const seen = new Set<string>()
      ws()
      if (text[i] === '}') { i++; return }
      for (;;) {
        ws()
        const key = str()
        if (seen.has(key)) found.push(join(path, key))
        seen.add(key)
        ws()
        i++ // ':'
        value(join(path, key))
        ws()
        if (text[i++] === '}') return
      }
    }
    if (c === '[') {
      i++
      ws()
      if (text[i] === ']') { i++; return }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`)
        ws()
        if (text[i++] === ']') return
      }
    }
    if (c === '"') { str(); return }
    while (i < text.length && !',}] \n\r\t'.includes(text[i]!)) i++
  }
  value('')
  return found
}
