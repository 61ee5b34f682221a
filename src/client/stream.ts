import {createParser} from 'eventsource-parser'
import type {RequestEntry} from '../domain/request-log.js'
import type {Delivery, Event} from '../domain/schemas.js'
import {isApiObject, TablepayConnectionError, TablepayUnexpectedAnswerError} from './errors.js'

/**
 * What a `reset` message carries: a snapshot's restore rewrote account `account_id` at once, sending no message per
 * record, so what a client read of it before may be gone or back as it was: read it again.
 */
export interface StreamReset {
  object: 'reset'
  account_id: string
}

/** What an `endpoint_deleted` message carries: endpoint `id` of the account was deleted, nothing more goes to it. */
export interface StreamEndpointDeleted {
  id: string
  object: 'webhook_endpoint'
  deleted: true
}

/** One message of `GET /sim/stream`: a new event, a delivery that was created or attempted, a deleted endpoint, or a restore. */
export type StreamMessage =
  | {type: 'event'; data: Event}
  | {type: 'delivery'; data: Delivery}
  | {type: 'endpoint_deleted'; data: StreamEndpointDeleted}
  | {type: 'reset'; data: StreamReset}

/**
 * A message of the account's live stream, `request` ones included: `openRequestStream()` yields those alone, one per
 * answered request (the request log).
 */
export type RequestStreamMessage = StreamMessage | {type: 'request'; data: RequestEntry}

/**
 * Parses the server-sent event stream of `response` (eventsource-parser: LF,
 * CR or CRLF line ends, a BOM, comments, `id:` and multi-line `data:`), and
 * yields the messages of `types`. Ends quietly when the body ends or
 * `signal` aborts; a message of those types whose data is not one of the
 * API's objects (JSON with an `object`) fails it with `unexpected_answer`:
 * another server answers at the URL.
 *
 * The body is locked at once, before the caller awaits anything else: undici
 * cancels the body of a Response that is garbage-collected while its body is
 * neither locked nor read, which ended `listen` streams at random.
 *
 * @example
 * for await (const message of readServerSentEvents(await fetch(url), signal)) console.log(message.type)
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
  const origin = URL.canParse(response.url) ? new URL(response.url).origin : 'the stream'
  const reader = response.body!.getReader()
  const messages = parseStream(reader, signal, types, origin)
  // a generator's return() before its first next() never runs its finally, and one while a next() waits for a
  // chunk runs it only once one comes: the connection closes at once instead, whenever the caller stops
  const stop = messages.return.bind(messages)
  messages.return = (value) => {
    reader.cancel().catch(() => {})
    return stop(value)
  }
  return messages
}

/** The object a message's `data` holds, when it is one of the API's (`isApiObject`). */
function apiObject(data: string): unknown {
  try {
    const value: unknown = JSON.parse(data)
    return isApiObject(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** The messages a stream yields unless asked for others: `request` messages are for `logs tail`. */
const STREAM_TYPES = ['event', 'delivery', 'endpoint_deleted', 'reset']

/**
 * The most characters one message may hold while it arrives: a check comes from a push body of at most 1 MiB,
 * so its events are far below this; a stream that never ends a message stops here instead of filling memory.
 */
export const MAX_MESSAGE_CHARS = 16 * 2 ** 20

async function* parseStream(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal | undefined,
  types: readonly string[],
  origin: string,
) {
  // TextDecoder drops a leading BOM, as the EventSource standard asks
  const decoder = new TextDecoder()
  let parsed: RequestStreamMessage[] = []
  let failure: Error | undefined
  const parser = createParser({
    maxBufferSize: MAX_MESSAGE_CHARS,
    onEvent: ({event = 'message', data}) => {
      if (!types.includes(event) || data === '') return
      const value = apiObject(data)
      if (value === undefined) failure ??= new TablepayUnexpectedAnswerError(origin, 200, data)
      else parsed.push({type: event, data: value} as RequestStreamMessage)
    },
    onError: (error) => {
      // no message of the API's is this long: what sends it is not the tablepay server, or not as it should
      if (error.type === 'max-buffer-size-exceeded')
        failure ??= new TablepayUnexpectedAnswerError(origin, 200, `a message past ${MAX_MESSAGE_CHARS} characters`)
    },
  })
  let text = ''
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      parser.feed((text = decoder.decode(chunk.value, {stream: true})))
      if (failure) throw failure
      const messages = parsed
      parsed = []
      yield* messages
    }
    // a CR may be the first half of a CRLF, so the parser holds a line that ends in one; at the end it cannot be
    if (text.endsWith('\r')) parser.feed('\n')
    yield* parsed
  } catch (error) {
    // an abort is how the caller stops listening; a server that stops ends the stream
    if (signal?.aborted || (error as Error).name === 'AbortError') return
    // undici reports a connection broken mid-stream (a server killed) as TypeError('terminated'): typed, as for any
    // call. By its name: under jest, undici's TypeError is Node's, not the test's global one
    if ((error as Error).name === 'TypeError') throw new TablepayConnectionError(origin, error as Error)
    throw error
  } finally {
    // a caller that stops early closes the connection
    reader.cancel().catch(() => {})
  }
}
