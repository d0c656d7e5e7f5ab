// One TLS connection to a test server, as a client with the given options would make it: what
// the handshake agreed (version, suite, ALPN, the certificate served) and, when asked, the status
// of one HTTP/1.1 GET on it. Rejects when the handshake fails. The server's certificate is not
// checked unless the options ask for it (`ca` with `rejectUnauthorized: true`).
import { connect, type ConnectionOptions } from 'node:tls'
import type { TestServer } from './tls-app.js'

export interface TlsProbe {
  protocol: string | null
  cipher: string
  alpn: string | false | null
  /** The common name of the certificate the server presented. */
  servedName: string
  /** The status of the GET, when one was asked for. */
  status?: number
}

export function tlsProbe (server: TestServer, opts: ConnectionOptions, get?: string): Promise<TlsProbe> {
  const { port } = new URL(server.url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false, ...opts }, () => {
      const agreed: TlsProbe = {
        protocol: socket.getProtocol(),
        cipher: socket.getCipher().standardName,
        alpn: socket.alpnProtocol,
        servedName: socket.getPeerCertificate().subject.CN as string
      }
      if (get === undefined) {
        resolve(agreed)
        socket.end()
        return
      }
      socket.write(`GET ${get} HTTP/1.1\r\nHost: ${opts.servername ?? 'localhost'}\r\nConnection: close\r\n\r\n`)
      let text = ''
      socket.on('data', (d: Buffer) => { text += d.toString() })
      socket.on('end', () => resolve({ ...agreed, status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]) }))
    })
    socket.on('error', reject)
  })
}
