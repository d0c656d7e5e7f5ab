// A fake node agent (svclet) for the stream subresources' tests: HTTPS that requires a client
// certificate of its own CA (the one the server under test presents with --kubelet-client-*),
// answering the agent's paths: /containerLogs (follow streams until the client leaves or the
// test ends it), /portForward (SPDY/3.1, each stream pair to a TCP port on loopback), /exec
// (SPDY/3.1, remotecommand v4: `echo` only), and
// anything else echoed back as JSON (what nodes/proxy passes through).
import { mkdtempSync } from 'node:fs'
import { createServer as createHttpsServer } from 'node:https'
import { connect, createServer as createTcpServer, type AddressInfo, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { TLSSocket } from 'node:tls'
import { ensureCertificates } from '../../auth/pki.js'
import type { NodeAgentOptions } from '../../plugins/streams/index.js'
import { serveSpdy, type SpdyStream } from './spdy-server.js'

export interface AgentRequest { method: string, url: string, clientCN: string | undefined, headers: IncomingMessage['headers'] }

export interface FakeNodeAgent {
  host: string
  port: number
  /** The server's --kubelet-* settings that reach this agent. */
  options: NodeAgentOptions
  requests: AgentRequest[]
  /** `<namespace>/<pod>/<container>` → the container's log. */
  logs: Map<string, string>
  /** Follow streams whose client went away. */
  followsClosed: number
  /** Ends every follow stream (the container exited). */
  endFollows (): void
  /** Resolves once `followsClosed` reaches n. */
  followsClosedReach (n: number): Promise<void>
}

/** A port nothing listens on (one just freed). */
export async function closedPort (): Promise<number> {
  const server = createTcpServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>(resolve => server.close(() => { resolve() }))
  return port
}

/** A TCP echo server: what a pod's port-forwarded port answers. */
export async function startEcho (t: { after (fn: () => unknown): void }, host = '127.0.0.1'): Promise<number> {
  const server: Server = createTcpServer((socket) => { socket.pipe(socket) })
  await new Promise<void>(resolve => server.listen(0, host, resolve))
  t.after(() => new Promise<void>(resolve => server.close(() => { resolve() })))
  return (server.address() as AddressInfo).port
}

function portForward (socket: Duplex): void {
  const pairs = new Map<string, { data?: SpdyStream, error?: SpdyStream }>()
  serveSpdy(socket, (stream) => {
    const id = stream.headers.get('requestid') ?? ''
    const pair = pairs.get(id) ?? {}
    pairs.set(id, pair)
    if (stream.headers.get('streamtype') === 'error') pair.error = stream
    else pair.data = stream
    if (pair.data === undefined || pair.error === undefined) return
    const { data, error } = pair
    const target = connect(Number(data.headers.get('port')), '127.0.0.1')
    data.onData((chunk) => { target.write(chunk) })
    data.onEnd(() => { target.end() })
    target.on('data', (chunk: Buffer) => { data.write(chunk) })
    target.once('end', () => { data.end(); error.end() })
    target.once('error', (err) => { error.write(Buffer.from(`error forwarding port ${data.headers.get('port')}: ${err.message}`)); error.end(); data.end() })
  })
}

/**
 * exec over SPDY (remotecommand v4): once the streams the query asks for are open, `echo` prints
 * its arguments, anything else fails; the error stream carries the v4 Status, then all end.
 */
function exec (socket: Duplex, query: URLSearchParams): void {
  const on = (name: string): boolean => query.get(name) === 'true' || query.get(name) === '1'
  // A terminal has no stderr of its own.
  const wanted = ['error', ...['stdout', 'stderr', 'stdin'].filter(s => on(s) && !(s === 'stderr' && on('tty')))]
  const open = new Map<string, SpdyStream>()
  let ran = false
  serveSpdy(socket, (stream) => {
    open.set(stream.headers.get('streamtype') ?? '', stream)
    if (ran || !wanted.every(w => open.has(w))) return
    ran = true
    const [program, ...args] = query.getAll('command')
    const ok = program === 'echo'
    if (ok) open.get('stdout')?.write(Buffer.from(`${args.join(' ')}\n`))
    else open.get('stderr')?.write(Buffer.from(`${program ?? ''}: not found\n`))
    for (const name of ['stdout', 'stderr']) open.get(name)?.end()
    const status = ok
      ? { metadata: {}, status: 'Success' }
      : { metadata: {}, status: 'Failure', message: 'command terminated with non-zero exit code: exit status 127', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '127' }] } }
    open.get('error')!.write(Buffer.from(JSON.stringify(status)))
    open.get('error')!.end()
  })
}

/** Starts the agent on `host`; it stops when the test ends. */
export async function startFakeNodeAgent (t: { after (fn: () => unknown): void }, host = '127.0.0.1'): Promise<FakeNodeAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-node-agent-'))
  const pki = await ensureCertificates(dir, { bindAddress: host, hosts: [host] })
  const follows = new Set<ServerResponse>()
  const waiters: Array<() => void> = []
  const agent: FakeNodeAgent = {
    host,
    port: 0,
    options: { clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem, caPem: pki.caCertPem },
    requests: [],
    logs: new Map(),
    followsClosed: 0,
    endFollows () { for (const res of follows) res.end() },
    async followsClosedReach (n) {
      while (agent.followsClosed < n) await new Promise<void>(resolve => waiters.push(resolve))
    }
  }
  const clientCN = (req: IncomingMessage): string | undefined => (req.socket as TLSSocket).getPeerCertificate?.()?.subject?.CN as string | undefined
  const server = createHttpsServer({ cert: pki.servingCertPem, key: pki.servingKeyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    agent.requests.push({ method: req.method ?? '', url: req.url ?? '', clientCN: clientCN(req), headers: req.headers })
    const url = new URL(req.url ?? '/', 'https://agent')
    const logPath = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname)
    if (logPath !== null && req.method === 'GET') {
      const text = agent.logs.get(`${logPath[1]}/${logPath[2]}/${logPath[3]}`)
      if (text === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`container ${logPath[3]} not found`)
        return
      }
      const tail = url.searchParams.get('tailLines')
      const lines = text.split(/(?<=\n)/)
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write(tail === null ? text : lines.slice(Math.max(0, lines.length - Number(tail))).join(''))
      if (url.searchParams.get('follow') !== 'true') { res.end(); return }
      follows.add(res)
      res.once('close', () => {
        follows.delete(res)
        if (!res.writableFinished) agent.followsClosed++
        for (const w of waiters.splice(0)) w()
      })
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-agent': 'fake' })
      res.end(JSON.stringify({ method: req.method, path: url.pathname, query: url.search, body: Buffer.concat(chunks).toString(), clientCN: clientCN(req) }))
    })
  })
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    agent.requests.push({ method: req.method ?? '', url: req.url ?? '', clientCN: clientCN(req), headers: req.headers })
    const protocols = [req.headers['x-stream-protocol-version'] ?? []].flat().flatMap(v => v.split(',')).map(p => p.trim())
    const url = new URL(req.url ?? '/', 'https://agent')
    const isSpdy = String(req.headers.upgrade).toLowerCase() === 'spdy/3.1'
    const protocol = url.pathname.startsWith('/portForward/') ? 'portforward.k8s.io' : url.pathname.startsWith('/exec/') ? 'v4.channel.k8s.io' : ''
    if (!isSpdy || protocol === '' || !protocols.includes(protocol)) {
      const body = 'this agent speaks SPDY/3.1 port-forward and exec only\n'
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
      return
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`)
    if (protocol === 'portforward.k8s.io') portForward(socket)
    else exec(socket, url.searchParams)
  })
  await new Promise<void>(resolve => server.listen(0, host, resolve))
  agent.port = (server.address() as AddressInfo).port
  t.after(async () => {
    agent.endFollows()
    server.closeAllConnections()
    await new Promise<void>(resolve => server.close(() => { resolve() }))
  })
  return agent
}
