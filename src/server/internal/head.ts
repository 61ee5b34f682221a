import type {ServerResponse} from 'node:http'

/**
 * Gives a HEAD answer the Content-Length its GET has: Node drops the body of
 * a HEAD answer, and with it the length it would have set (docs/api.md: same
 * status and headers as the GET).
 */
export function keepLengthOnHead(res: ServerResponse): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    const sized = typeof chunk === 'string' || chunk instanceof Uint8Array
    if (sized && !res.headersSent && !res.hasHeader('content-length'))
      res.setHeader('content-length', Buffer.byteLength(chunk))
    return end(chunk, ...rest)
  }) as ServerResponse['end']
}
