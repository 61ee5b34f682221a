import type {IncomingMessage, ServerResponse} from 'node:http'
import {ApiError} from '../../domain/errors.js'
import {requestIdFor} from './request-id.js'

const STARTING = new ApiError(
  'starting',
  'tablepay is still starting (opening its storage, reading its deliveries) and answers in a moment. ' +
    'Send the request again after Retry-After; GET /v1/health answers 200 once it is ready.',
)

/**
 * The answer to every request that arrives between the port being open and
 * the app being ready: `503 starting` with `Retry-After: 1` and the error
 * body (docs/api.md, "Starting"). The app needs its own URL, known only once
 * listening, so the port opens first.
 *
 * @example
 * let handle: RequestListener = answerStarting
 * await listenOn(port, host, (req, res) => handle(req, res))
 */
export function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  const given = req.headers['x-request-id']
  const id = requestIdFor(typeof given === 'string' ? given : undefined)
  const body = JSON.stringify({error: {code: STARTING.code, message: STARTING.message, request_id: id}})
  res.writeHead(STARTING.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'retry-after': '1',
    'x-request-id': id,
  })
  res.end(req.method === 'HEAD' ? undefined : body)
}
