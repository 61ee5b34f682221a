import {createServer, type IncomingMessage, type RequestListener, type ServerResponse} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import {answerClientError, refuseConnect, refusedForHead, refuseExpectation} from './internal/client-errors.js'
import {holdBody} from './internal/expect-continue.js'
import {originForm} from './internal/request-path.js'

export interface Listener {
  /** `http://HOST:PORT`, no trailing slash: the address actually listened on. */
  url: string
  /**
   * Stops accepting, closes the connections with no answer under way (idle, or that sent nothing yet), lets
   * answers under way finish, then closes their connections; once, however often called.
   */
  close(): Promise<void>
}

/**
 * The port that `--port N` (or `startSimulator({port})`) names but another program holds: the start fails, it
 * never moves (docs/api.md). The remedies name both, since both come here.
 */
function listenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  const where = `port ${port} on ${host}`
  if (error.code === 'EADDRINUSE') {
    return new Error(
      `Cannot listen on ${where}: it is in use by another program (or another tablepay serve). ` +
        'Stop that program, or pick another port: port 0 (--port 0, or startSimulator({port: 0})) takes a free one.',
    )
  }
  if (error.code === 'EACCES') {
    return new Error(
      `Cannot listen on ${where}: permission denied (ports below 1024 need privileges). Use port 0 (--port 0, or startSimulator({port: 0})) for a free one.`,
    )
  }
  if (error.code === 'EADDRNOTAVAIL') {
    return new Error(`Cannot listen on ${where}: ${host} is not an address of this machine (see --host).`)
  }
  // a name no resolver knows, or an address such as 999.1.1.1 that is none
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return new Error(
      `Cannot listen on ${where}: ${host} is no address and no name this machine resolves. ` +
        'Pass an address of this machine to --host, such as 127.0.0.1 or 0.0.0.0.',
    )
  }
  return error
}

/** How a client reaches `host`: an address that means every interface is reached on loopback. */
function urlOf(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}

/** How long a connection may keep the server waiting, in ms (docs/api.md, "HTTP details": Connections). */
export interface ConnectionTimeouts {
  /** For a whole request head, from the connection's first byte (or its opening): 408 and closed past it. */
  headersMs: number
  /** For a whole request, body included: past it, 408 and closed. Above the longest fault delay (60 s) plus 60 s. */
  requestMs: number
  /** For the next request on a kept-alive connection. */
  idleMs: number
}

export const CONNECTION_TIMEOUTS: ConnectionTimeouts = {headersMs: 60_000, requestMs: 120_000, idleMs: 5_000}

/**
 * Serves `handle` on exactly `port` (0: a free one) of `host`, or fails
 * naming the port. Requests sent with `Expect: 100-continue` reach `handle`
 * too, holding back their body until the app asks for it. A client that
 * sends too slowly, or nothing, is closed (`timeouts`), so idle and
 * slowloris connections cannot pile up. What Node's parser refuses is
 * answered with the error body (internal/client-errors.ts); a request
 * target in absolute form reaches `handle` in origin form. Requests
 * pipelined on one connection reach `handle` one after the other, each once
 * the one before it is answered.
 */
export async function listenOn(
  port: number,
  host: string,
  handle: RequestListener,
  timeouts: ConnectionTimeouts = CONNECTION_TIMEOUTS,
): Promise<Listener> {
  const serve: RequestListener = (req, res) => {
    if (refusedForHead(req, res)) return
    if (req.url?.[0] !== '/') req.url = originForm(req.url ?? '')
    // pipelined behind another, it runs once that one is answered: Node would run both at once, and a GET
    // sent after a push must see it, pushes without `version` apply in the order sent (RFC 9112, 9.3.2)
    if (res.socket === null) res.once('socket', () => handle(req, res))
    else handle(req, res)
  }
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.idleMs,
      // how often Node looks for requests past their time (30 s by default): within a second of it
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
      // refused with the error body instead (refusedForHead)
      requireHostHeader: false,
    },
    serve,
  )
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    // Node takes any Expect naming 100-continue among others (two lines join as `100-continue, foo`) for it
    if (req.headers.expect!.trim().toLowerCase() !== '100-continue') return refuseExpectation(req, res)
    holdBody(req, res)
    serve(req, res)
  })
  // what Node's parser refuses, or waits for too long, gets the error body as every answer does
  server.on('clientError', answerClientError)
  server.on('checkExpectation', refuseExpectation)
  server.on('connect', refuseConnect)
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, port, host)))
    server.listen(port, host, () => resolve())
  })
  const {port: actual} = server.address() as AddressInfo
  let closed: Promise<void> | undefined
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()))
      server.closeIdleConnections()
      for (const socket of sockets) {
        const answer = (socket as Socket & {_httpMessage?: ServerResponse})._httpMessage
        // a keep-alive connection still answering is closed once its answer is out
        if (answer) answer.once('finish', () => socket.destroySoon())
        // one with no answer under way goes now: closeIdleConnections leaves open a connection that has sent no
        // request yet (the spare one fetch opens after a stream it aborted, a browser's preconnect), and close
        // would wait until its client drops it (4 s for fetch)
        else socket.destroy()
      }
    })
  // closing twice (a test, then its cleanup) waits for the one close
  return {url: urlOf(host, actual), close: () => (closed ??= close())}
}
