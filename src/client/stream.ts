import type {RequestEntry} from '../domain/request-log.js'
import type {Delivery, Event} from '../domain/schemas.js'

/** One message of `GET /sim/stream`: a new event, or a delivery that was created or attempted. */
export type StreamMessage = {type: 'event'; data: Event} | {type: 'delivery'; data: Delivery}

/** A message of the stream opened with `{requests: true}`: also each answered request (the request log). */
export type RequestStreamMessage = StreamMessage | {type: 'request'; data: RequestEntry}

/**
 * Parses the server-sent event stream of `response` (the subset the server
 * writes: `event:` and `data:` lines, a blank line ending each message).
 * Ends quietly when the body ends or `signal` aborts.
 *
 * The body is locked at once, before the caller awaits anything else: undici
 * cancels the body of a Response that is garbage-collected while its body is
 * neither locked nor read, which ended `listen` streams at random.
 */
export function readServerSentEvents(response: Response, signal?: AbortSignal): AsyncGenerator<StreamMessage>
export function readServerSentEvents(
  response: Response,
  signal: AbortSignal | undefined,
  types: readonly string[],
): AsyncGenerator<RequestStreamMessage>
export function readServerSentEvents(
  response: Response,
  signal?: AbortSignal,
  types: readonly string[] = STREAM_TYPES,
): AsyncGenerator<RequestStreamMessage> {
  return parseStream(response.body!.getReader(), signal, types)
}

/** The messages a stream yields unless asked for more: `request` messages are for `logs tail`. */
const STREAM_TYPES = ['event', 'delivery']

async function* parseStream(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal | undefined,
  types: readonly string[],
) {
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      buffer += decoder.decode(chunk.value, {stream: true})
      let end: number
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const message = parseMessage(buffer.slice(0, end), types)
        buffer = buffer.slice(end + 2)
        if (message) yield message
      }
    }
  } catch (error) {
    // an abort is how the caller stops listening; a server that stops ends the stream
    if (signal?.aborted || (error as Error).name === 'AbortError') return
    throw error
  } finally {
    // a caller that stops early closes the connection
    reader.cancel().catch(() => {})
  }
}

function parseMessage(block: string, types: readonly string[]): RequestStreamMessage | undefined {
  let type = 'message'
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim()
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
  }
  if (!types.includes(type) || data.length === 0) return undefined
  return {type, data: JSON.parse(data.join('\n'))} as RequestStreamMessage
}
