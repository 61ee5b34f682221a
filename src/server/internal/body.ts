import {isUtf8} from 'node:buffer'
import type {IncomingMessage} from 'node:http'
import type {H3Event} from 'h3'
import type * as z from 'zod'
import {ApiError, type ErrorDetail, MAX_DETAILS} from '../../domain/errors.js'
import {tooLargeToParse} from '../../domain/json-memory.js'
import {decodeBody, requestCodings} from './content-encoding.js'
import {grantContinue, holdsBody} from './expect-continue.js'
import {requestHeader} from './headers.js'
import {READABLE, whyNotJson} from '../../domain/parse-messages.js'
import {refusalOf} from './client-errors.js'

export const BODY_LIMIT = 1024 * 1024
/**
 * Bytes past its limit an oversized body is read and dropped; past them we stop reading and cut the
 * connection. The same for every route: a larger limit (an import's) must not make the drain larger too.
 */
const DRAIN_EXTRA = 15 * BODY_LIMIT

const JSON_TYPE = /^application\/json\s*(;|$)/i
const PRINTABLE = /^[\x20-\x7e]{1,200}$/

const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB`
const tooLarge = (limit: number) => () =>
  new ApiError(
    'payload_too_large',
    `Request body is larger than ${limit} bytes (${mib(limit)}), the most this route reads (once decoded, when sent with Content-Encoding): send at most that.`,
  )

/** Gathers a body's chunks, keeping at most `limit` bytes and giving up 15 MiB past it (the drain limit). */
class Chunks {
  readonly list: Uint8Array[] = []
  size = 0

  constructor(readonly limit: number) {}

  get drainLimit(): number {
    return this.limit + DRAIN_EXTRA
  }

  /** False once the body is past the drain limit: stop reading. */
  add(chunk: Uint8Array): boolean {
    this.size += chunk.length
    if (this.size <= this.limit) this.list.push(chunk)
    return this.size <= this.drainLimit
  }
}

const cutOff = () =>
  new ApiError(
    'invalid_json',
    'Request body is not valid JSON: the client closed the connection before the body ended.',
  )

/**
 * A Node request's body, from its events: `for await` over the stream costs
 * a promise per chunk on every request. A client that goes away mid-body is a
 * client error, not a failure of ours.
 */
function readNodeBody(req: IncomingMessage, chunks: Chunks): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: ApiError) => {
      req.off('data', onData).off('end', onEnd).off('error', onCut).off('close', onCut)
      if (error) reject(error)
      else resolve()
    }
    const onData = (chunk: Buffer) => {
      if (!chunks.add(chunk)) settle()
    }
    const onEnd = () => settle()
    // Node's parser refused the rest of the body: the client was answered that refusal (client-errors.ts)
    const onCut = () => settle(refusalOf(req) ?? cutOff())
    req.on('data', onData).on('end', onEnd).on('error', onCut).on('close', onCut)
  })
}

/** A web Request's body: the msw handlers run the app as a web handler, whose body is a stream. */
async function readWebBody(body: AsyncIterable<Uint8Array>, chunks: Chunks): Promise<void> {
  for await (const chunk of body) if (!chunks.add(chunk)) return
}

/**
 * Reads the body, at most 1 MiB as sent and once decoded. An oversized body
 * is read to the end and dropped (up to a bound) so the client gets the 413
 * rather than a reset; a client that holds its body back until told to send
 * it (`Expect: 100-continue`) gets the 413 without sending it.
 */
async function readLimited(event: H3Event, limit: number): Promise<Buffer> {
  const codings = requestCodings(event)
  const declared = Number(requestHeader(event, 'content-length') ?? 0)
  const chunks = new Chunks(limit)
  if (declared > chunks.drainLimit || (declared > limit && holdsBody(event))) {
    event.node.res.setHeader('connection', 'close')
    throw tooLarge(limit)()
  }
  grantContinue(event)
  // a web request (msw) without a body has none to read: the node request standing in for it never ends
  const web = event.web?.request
  const body = (web?.body ?? []) as unknown as AsyncIterable<Uint8Array>
  await (web ? readWebBody(body, chunks) : readNodeBody(event.node.req, chunks))
  if (chunks.size > chunks.drainLimit) event.node.res.setHeader('connection', 'close')
  if (chunks.size > limit) throw tooLarge(limit)()
  const only = chunks.list[0]
  const raw = chunks.list.length === 1 && Buffer.isBuffer(only) ? only : Buffer.concat(chunks.list)
  return codings ? decodeBody(raw, codings, limit, tooLarge(limit)) : raw
}

// control characters, and what invalid UTF-8 decodes to: a body that holds them is not text to quote
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const BINARY = /[\u0000-\u0008\u000e-\u001f\u007f\ufffd]/

const NOT_UTF8 =
  'the body is not UTF-8 text, as JSON is sent (another charset, or binary: a compressed body needs its Content-Encoding)'

/** Why `text` is not JSON, in words that never quote binary bytes back (docs/api.md). */
function notJsonReason(text: string, error: Error): string {
  if (text.length === 0) return 'the body is empty'
  if (BINARY.test(text)) return NOT_UTF8
  return whyNotJson(text, error)
}

const dotted = (path: readonly PropertyKey[]) => path.map(String).join('.')

/**
 * zod issues as `details`: a dotted path and a message each. An unknown field is named at its
 * own path, as `checks lint` names it, not at its parent's (the whole body or query).
 */
export function zodDetails(error: z.ZodError): ErrorDetail[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({path: dotted([...issue.path, key]), message: 'unknown field'}))
      : [{path: dotted(issue.path) || '(body)', message: issue.message}],
  )
}

/** A 422 that names the first problem in its message and lists them in `details`, the first MAX_DETAILS of them. */
export function validationError(what: string, error: z.ZodError): ApiError {
  const details = zodDetails(error)
  const first = details[0]!
  const more =
    details.length > MAX_DETAILS
      ? ` (and more: details lists the first ${MAX_DETAILS})`
      : details.length > 1
        ? ` (and ${details.length - 1} more, see details)`
        : ''
  return new ApiError(
    'validation_failed',
    `${what} failed validation: ${first.path}: ${first.message}${more}.`,
    details.slice(0, MAX_DETAILS),
  )
}

/**
 * The JSON body, checked against `schema`: 415 for another content type, 413
 * above 1 MiB, 400 for malformed JSON, 422 with every problem for the rest.
 * A request without a body is `{}` to a schema that takes `{}` (a body whose
 * fields are all optional is optional, docs/api.md), whatever its content type.
 * `accept`, when given, is a faster check of the same schema that returns its
 * output for a plainly valid body, and `undefined` to leave the rest to zod.
 */
export async function readJson<S extends z.ZodType>(
  event: H3Event,
  schema: S,
  accept?: (value: unknown) => z.output<S> | undefined,
  limit = BODY_LIMIT,
): Promise<z.output<S>> {
  const none = bodyless(event)
  if (!none && !lengthUnknown(event)) return parseJson(await readJsonText(event, limit), schema, accept)
  // no body, or one seen to be empty only once read (chunked, or encoded): `{}` where the schema takes it
  const empty = schema.safeParse({})
  if (none && empty.success) return empty.data
  const text = await readJsonText(event, limit, empty.success)
  return text === '' && empty.success ? empty.data : parseJson(text, schema, accept)
}

/**
 * `readJson` for a body that is never empty, checked by a schema whose checks take turns of the event loop (an
 * import's, domain/snapshot-document.ts). Only it parses asynchronously: zod's is slower for every other body.
 */
export async function readJsonInTurns<S extends z.ZodType>(event: H3Event, schema: S, limit: number) {
  return checked(await schema.safeParseAsync(jsonValue(await readJsonText(event, limit)), READABLE))
}

/** Whether the body's length is known only once it is read: chunked, or encoded. */
const lengthUnknown = (event: H3Event) =>
  requestHeader(event, 'content-length') === undefined || requestHeader(event, 'content-encoding') !== undefined

/** Whether the request has no body: no length or a length of 0, and not chunked; a web request (msw), no stream. */
function bodyless(event: H3Event): boolean {
  const web = event.web?.request
  if (web) return web.body === null
  const length = requestHeader(event, 'content-length')
  return requestHeader(event, 'transfer-encoding') === undefined && (length === undefined || length === '0')
}

/**
 * The body's text, as `readJson` reads it before parsing (415 for another
 * content type, 413 above 1 MiB): for a route that may answer from the
 * bytes alone (a replayed push, server/internal/push-replays.ts). With
 * `emptyIsNone`, a body whose length is known only once read (chunked, or
 * encoded) and that turns out empty is '' whatever its content type.
 */
export async function readJsonText(event: H3Event, limit = BODY_LIMIT, emptyIsNone = false): Promise<string> {
  const type = requestHeader(event, 'content-type') ?? ''
  const typed = JSON_TYPE.test(type)
  if (!typed && !(emptyIsNone && lengthUnknown(event))) throw notJsonType(type)
  const body = await readLimited(event, limit)
  if (!typed && body.length > 0) throw notJsonType(type)
  const text = body.toString('utf8')
  // the request log shows what was sent (docs/api.md, "The request log")
  event.context.requestText = text
  // decoded, bytes of another charset (latin-1's é) would be kept as U+FFFD, and sent on in webhooks
  if (!isUtf8(body)) throw new ApiError('invalid_json', `Request body is not valid JSON: ${NOT_UTF8}.`)
  // an import's body may hold 256 MiB of small values (domain/json-memory.ts)
  const tooLarge = tooLargeToParse(text)
  if (tooLarge) throw new ApiError('payload_too_large', `Request body is not read: ${tooLarge}.`)
  return text
}

function notJsonType(type: string): ApiError {
  // a header can hold any bytes: it is quoted back only when it is plain text
  const got = PRINTABLE.test(type) ? ` (got "${type}")` : ''
  return new ApiError('unsupported_media_type', `Send the body as JSON with "Content-Type: application/json"${got}.`)
}

/** `text` parsed and checked as `readJson` does: 400 for malformed JSON, 422 with every problem for the rest. */
export function parseJson<S extends z.ZodType>(
  text: string,
  schema: S,
  accept?: (value: unknown) => z.output<S> | undefined,
): z.output<S> {
  const value = jsonValue(text)
  return accept?.(value) ?? checked(schema.safeParse(value, READABLE))
}

function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new ApiError('invalid_json', `Request body is not valid JSON: ${notJsonReason(text, error as Error)}.`)
  }
}

function checked<T>(result: z.ZodSafeParseResult<T>): T {
  if (!result.success) throw validationError('Request body', result.error)
  return result.data
}

/** A path parameter checked against `schema` (or first `accept`, as in `readJson`): a 422 on `name` when it does not fit. */
export function readParam<S extends z.ZodType>(
  event: H3Event,
  name: string,
  schema: S,
  accept?: (value: unknown) => z.output<S> | undefined,
): z.output<S> {
  const value: unknown = event.context.params?.[name]
  const accepted = accept?.(value)
  if (accepted !== undefined) return accepted
  const result = schema.safeParse(value, READABLE)
  if (!result.success) {
    throw new ApiError('validation_failed', `Path parameter ${name}: ${result.error.issues[0]!.message}.`, [
      {path: name, message: result.error.issues[0]!.message},
    ])
  }
  return result.data
}
