// /version: the API level this server implements, so kubectl picks a matching client.
import fp from 'fastify-plugin'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { API_LEVEL, gitVersion } from '../resources/naming.js'

const ourVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

export const versionInfo = {
  major: API_LEVEL.major,
  minor: API_LEVEL.minor,
  emulationMajor: API_LEVEL.major,
  emulationMinor: API_LEVEL.minor,
  gitVersion: gitVersion(ourVersion),
  gitCommit: '',
  gitTreeState: 'clean',
  buildDate: '1970-01-01T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'tsx',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`
}

export default fp(async function version (fastify: FastifyInstance) {
  fastify.get('/version', async (_request, reply) => reply.type('application/json').send(JSON.stringify(versionInfo, null, 2)))
}, { name: 'version' })
