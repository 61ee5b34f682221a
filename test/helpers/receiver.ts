import {createServer, type IncomingHttpHeaders} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface Received {
  headers: IncomingHttpHeaders
  body: string
}

/**
 * A real webhook receiver on a free loopback port. `respond` decides each
 * answer (a status, or 'hang' to never answer); `waitFor(n)` resolves once n
 * requests have arrived.
 */
export async function startReceiver(respond: (req: Received) => number | 'hang' | Promise<number> = () => 200) {
  const received: Received[] = []
  const waiters: {n: number; resolve: () => void}[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const request = {headers: req.headers, body: Buffer.concat(chunks).toString('utf8')}
    received.push(request)
    for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve()
    const answer = await respond(request)
    if (answer === 'hang') return
    res.writeHead(answer, answer >= 300 && answer < 400 ? {location: 'https://example.com/'} : {}).end('ok')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    waitFor: (n: number) => new Promise<void>((resolve) => (received.length >= n ? resolve() : waiters.push({n, resolve}))),
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
