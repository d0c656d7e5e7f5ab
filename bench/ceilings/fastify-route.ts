// The get ceiling: a bare Fastify HTTPS server, with the API server's TLS setup (client
// certificates requested), answering one route with the object's stored JSON. Prints its port.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

interface Options { cert: string, key: string, ca: string, bodyFile: string }

const opts = JSON.parse(process.argv[2]!) as Options
const body = readFileSync(opts.bodyFile, 'utf8')
const app = Fastify({
  logger: false,
  https: { cert: opts.cert, key: opts.key, ca: opts.ca, requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' }
})
app.get('/object', async (_request, reply) => reply.type('application/json').send(body))
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(`${typeof address === 'object' && address !== null ? address.port : 0}\n`)
process.on('SIGTERM', () => { void app.close().then(() => process.exit(0)) })
