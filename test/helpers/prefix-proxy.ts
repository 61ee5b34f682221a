import {createServer, request} from 'node:http'
import type {AddressInfo} from 'node:net'
import {startTestServer} from './simulator.js'

/**
 * A reverse proxy on a loopback port that serves a server under a path, as
 * one in front of a shared sandbox does: `${url}${prefix}/t/…` is the
 * server's `/t/…`, answers and streams passed through as they come. Anything
 * outside the prefix is 404. `forwardTo` names the server once it is up: it
 * is started with the proxy's URL (`serve --public-url`).
 */
export async function startPrefixProxy(prefix: string) {
  let target: URL | undefined
  const server = createServer((req, res) => {
    const path = req.url ?? '/'
    if (!target || !(path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`))) {
      res.writeHead(404).end()
      return
    }
    const headers = {...req.headers, host: target.host}
    const forwarded = request(
      {host: target.hostname, port: target.port, method: req.method, path: path.slice(prefix.length) || '/', headers},
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(res)
      },
    )
    forwarded.on('error', () => res.destroy())
    res.on('close', () => forwarded.destroy())
    req.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwardTo(origin: string) {
      target = new URL(origin)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  }
}

/**
 * A server in memory under `prefix` behind a proxy, started with the proxy's URL as its `--public-url`, as a
 * shared sandbox runs; `close` stops both.
 */
export async function startServerBehindProxy(prefix: string) {
  const proxy = await startPrefixProxy(prefix)
  const server = await startTestServer({memory: true, serve: {publicUrl: `${proxy.url}${prefix}`}}).catch(
    async (error: unknown) => {
      await proxy.close()
      throw error
    },
  )
  proxy.forwardTo(server.url)
  return {proxy, server, close: () => Promise.all([server.close(), proxy.close()]).then(() => undefined)}
}
