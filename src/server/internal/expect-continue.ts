import type {IncomingMessage, ServerResponse} from 'node:http'
import type {H3Event} from 'h3'

/** Requests sent with `Expect: 100-continue` whose client still holds back the body. */
const holding = new WeakSet<IncomingMessage>()

/**
 * For Node's `checkContinue` event: the request goes to the app like any
 * other, and its client is told to send the body only when a handler reads
 * it (`grantContinue`), so a request refused before that (auth, size, type)
 * never sends it (docs/api.md, HTTP details). An answer given without the
 * body closes the connection: its unsent body cannot be told from the next
 * request.
 */
export function holdBody(req: IncomingMessage, res: ServerResponse): void {
  holding.add(req)
  res.setHeader('connection', 'close')
}

/** Whether the client still holds back a body it announced with `Expect: 100-continue`. */
export const holdsBody = (event: H3Event): boolean => holding.has(event.node.req)

/** Tells a client holding back its body to send it: the request passed auth and the size check. */
export function grantContinue(event: H3Event): void {
  const {req, res} = event.node
  if (!holding.delete(req)) return
  res.removeHeader('connection')
  res.writeContinue()
}
