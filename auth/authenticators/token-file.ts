// Static bearer tokens from a CSV file: token,user,uid,"group1,group2".
import fp from 'fastify-plugin'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { UserInfo } from '../../resources/user-info.js'

/** Splits one CSV line, honouring double quotes (RFC 4180). */
function csvFields (line: string, where: string): string[] {
  const fields: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { field += '"'; i++ } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') {
      if (field !== '') throw new Error(`${where}: bare " in non-quoted field`)
      quoted = true
    } else if (c === ',') { fields.push(field); field = '' } else field += c
  }
  if (quoted) throw new Error(`${where}: extraneous or missing " in quoted field`)
  fields.push(field)
  return fields
}

/** Parses a token file; throws with the file and line on any malformed entry. */
export function parseTokenFile (text: string, path: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>()
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    const where = `${path}:${i + 1}`
    const record = csvFields(line, where)
    if (record.length < 3) throw new Error(`token file '${where}' must have at least 3 columns (token, user name, user uid), found ${record.length}`)
    const [token, username, uid, groups] = record as [string, string, string, string | undefined]
    if (token === '') throw new Error(`token file '${where}': token must not be empty`)
    if (username === '') throw new Error(`token file '${where}': user name must not be empty`)
    if (tokens.has(token)) throw new Error(`token file '${where}': duplicate token`)
    tokens.set(token, { username, uid, groups: groups === undefined || groups === '' ? [] : groups.split(',').map(g => g.trim()).filter(g => g !== '') })
  })
  return tokens
}

export default fp(async function tokenFile (fastify: FastifyInstance, opts: { path: string }) {
  const tokens = parseTokenFile(readFileSync(opts.path, 'utf8'), opts.path)
  fastify.authn.addToken('token-file', (token) => {
    const user = tokens.get(token)
    return user === undefined ? undefined : { user }
  })
}, { name: 'authn:token-file', dependencies: ['authn'] })
