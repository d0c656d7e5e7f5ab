// A TCP proxy between the servers and PostgreSQL. It lets the database restart on another port
// behind one address, and it can cut the LISTEN connections silently: their bytes stop in both
// directions while both sockets stay open, as in a network partition, so no side is told.
import { connect, createServer, type Server, type Socket } from 'node:net'

interface Link { client: Socket, upstream: Socket, listens: boolean, silent: boolean }

export class PostgresProxy {
  private readonly links = new Set<Link>()
  private constructor (private readonly server: Server, readonly port: number, private target: number) {}

  static async start (target: number): Promise<PostgresProxy> {
    let proxy: PostgresProxy | undefined
    const server = createServer((client) => proxy?.accept(client))
    await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', resolve) })
    const address = server.address()
    if (address === null || typeof address !== 'object') throw new Error('proxy: no address')
    proxy = new PostgresProxy(server, address.port, target)
    return proxy
  }

  /** Where new connections go (the database's port after a restart). */
  retarget (port: number): void { this.target = port }

  private accept (client: Socket): void {
    const upstream = connect(this.target, '127.0.0.1')
    const link: Link = { client, upstream, listens: false, silent: false }
    this.links.add(link)
    const end = (): void => {
      // A silenced link stays open on the client's side: it must learn nothing.
      if (link.silent) { upstream.destroy(); return }
      this.links.delete(link)
      client.destroy()
      upstream.destroy()
    }
    client.on('data', (d: Buffer) => {
      // A simple-protocol Query message naming LISTEN marks the connection notifications arrive on.
      if (!link.listens && d.includes('LISTEN ')) link.listens = true
      if (!link.silent) upstream.write(d)
    })
    upstream.on('data', (d: Buffer) => { if (!link.silent) client.write(d) })
    client.on('error', end)
    client.on('close', () => { link.silent = false; end() })
    upstream.on('error', end)
    upstream.on('close', end)
  }

  /** Silences every connection that ran LISTEN; returns how many. */
  silenceListeners (): number {
    let n = 0
    for (const link of this.links) {
      if (link.listens && !link.silent) { link.silent = true; n++ }
    }
    return n
  }

  /** Ends the silence the way a partition ends: the connections are reset. */
  resetSilenced (): void {
    for (const link of this.links) {
      if (!link.silent) continue
      this.links.delete(link)
      link.client.resetAndDestroy()
      link.upstream.destroy()
    }
  }

  async close (): Promise<void> {
    for (const link of this.links) { link.client.destroy(); link.upstream.destroy() }
    this.links.clear()
    await new Promise<void>(resolve => this.server.close(() => resolve()))
  }
}
