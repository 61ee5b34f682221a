import {connect, createServer, type Server, type Socket} from 'node:net'
import {freePort} from './ports.js'
import {createTestDatabase} from './postgres.js'

/**
 * A TCP relay to the run's PostgreSQL on `port`: cutting it is what a lost
 * network does to every connection through it, while the database itself
 * goes on. `tap`, when given, is called for each connection and then sees
 * every chunk its client sends (test/helpers/wire.ts reads them).
 */
export function relay(port: number, target: URL, tap?: () => (chunk: Buffer) => void) {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  return {
    async open() {
      server = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('close', () => sockets.delete(socket))
          socket.on('error', () => {})
        }
        if (tap) client.on('data', tap())
        client.pipe(upstream).pipe(client)
      })
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve))
    },
    async cut() {
      const closed = new Promise((resolve) => server!.close(resolve))
      for (const socket of sockets) socket.destroy()
      await closed
    },
  }
}

/**
 * A new test database (test/helpers/postgres.ts) and an open relay to it:
 * `url` reaches the database through `link`, which the test cuts and opens.
 *
 * @example
 * const {db, link, url} = await databaseBehindRelay()
 */
export async function databaseBehindRelay(tap?: () => (chunk: Buffer) => void) {
  const db = await createTestDatabase()
  const port = await freePort()
  const link = relay(port, new URL(db.url), tap)
  await link.open()
  const url = new URL(db.url)
  url.port = String(port)
  return {db, link, url: url.toString()}
}
