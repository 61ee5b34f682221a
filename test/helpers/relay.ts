import {connect, createServer, type Server, type Socket} from 'node:net'

/**
 * A TCP relay to the run's PostgreSQL on `port`: cutting it is what a lost
 * network does to every connection through it, while the database itself
 * goes on.
 */
export function relay(port: number, target: URL) {
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
