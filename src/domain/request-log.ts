import * as z from 'zod'
import {type CheckChanges, checkChanges} from './check-changes.js'
import {pathMatches} from './faults.js'
import {MAX_NESTING, nestsPast} from './json-depth.js'
import {MAX_PATH_FILTER} from './constants.js'
import {pathPatternProblem} from './path-pattern.js'
import {redactSecrets, redactText} from './redaction.js'
import type {PushResult} from './push.js'
import type {CheckRecord} from './records.js'

/** Bodies longer than this (characters of their JSON, or of their text) are cut (docs/api.md, "The request log"). */
export const BODY_CAP = 64 * 1024

/** One answered API request in one line: the access line of `serve` and each line of `logs tail` and `logs list`. */
export interface AccessLine {
  created_at: string
  method: string
  path: string
  /** null: a fault reset the connection, nothing was answered. */
  status: number | null
  push_result: string | null
  error_code: string | null
  duration_ms: number
  request_id: string
  fault_id: string | null
}

/** Entries each account keeps by default (`serve --request-log N`). */
export const REQUEST_LOG_SIZE = 1000

/** What the whole log, every account together, holds at most, in approximate bytes: the oldest entries go first. */
export const REQUEST_LOG_BYTES = 64 * 1024 * 1024

/** One request as the server saw it, before its bodies are rendered: what the log keeps. */
export interface RequestTrace {
  id: string
  method: string
  path: string
  query: Record<string, string>
  status: number | null
  duration_ms: number
  created_at: string
  key_hint: string
  idempotency_key: string | null
  push_result: PushResult | null
  error: {code: string; message: string} | null
  check_id: string | null
  fault_id: string | null
  /** The body as sent (text), or already rendered when it was too long to keep whole. */
  request_body: string | LoggedBody | undefined
  response_body: string | LoggedBody | undefined
  /** The check before and after a push that changed it: `changes` is computed from them when read. */
  previous?: CheckRecord
  next?: CheckRecord
  /** Those `changes` already computed: how another instance's note carries them (`sharedTrace`). */
  changes?: CheckChanges
}

export interface LoggedBody {
  body: unknown
  truncated: boolean
}

/** An entry of the request log, as `GET /v1/sim/requests` shows it. */
export const RequestEntry = z.object({
  id: z.string(),
  object: z.literal('request'),
  method: z.string(),
  path: z.string(),
  query: z.record(z.string(), z.string()),
  status: z.int().nullable(),
  duration_ms: z.number(),
  created_at: z.string(),
  key_hint: z.string(),
  idempotency_key: z.string().nullable(),
  push_result: z.enum(['created', 'updated', 'unchanged', 'stale']).nullable(),
  error: z.object({code: z.string(), message: z.string()}).nullable(),
  check_id: z.string().nullable(),
  fault_id: z.string().nullable(),
  request_body: z.unknown(),
  request_body_truncated: z.boolean(),
  response_body: z.unknown(),
  response_body_truncated: z.boolean(),
  changes: z.looseObject({items: z.looseObject({})}).nullable(),
})
export type RequestEntry = Omit<z.infer<typeof RequestEntry>, 'changes'> & {changes: CheckChanges | null}

/**
 * The first `chars` characters of `text` as a string of their own. A slice of
 * a long string is a view into it in V8 (a sliced string) and keeps all of it
 * alive: the start of a 1 MB body would keep the megabyte.
 */
function cutCopy(text: string, chars: number): string {
  return new TextDecoder().decode(new TextEncoder().encode(text.slice(0, chars)))
}

/**
 * A body as the log shows it: the parsed JSON (or the text, when it is not
 * JSON), secrets redacted, cut to BODY_CAP characters of its JSON (then the
 * text of its start, with `truncated`).
 *
 * @example
 * logBody('{"secret": "whsec_x"}') // {body: {secret: '[redacted]'}, truncated: false}
 */
export function logBody(text: string | undefined): LoggedBody {
  if (text === undefined || text === '') return {body: null, truncated: false}
  const parsed = parsedBody(text)
  if (!parsed) {
    const plain = redactText(text)
    return plain.length <= BODY_CAP
      ? {body: plain, truncated: false}
      : {body: cutCopy(plain, BODY_CAP), truncated: true}
  }
  const {value} = parsed
  if (text.length <= BODY_CAP) return {body: value, truncated: false}
  const json = JSON.stringify(value)
  if (json.length <= BODY_CAP) return {body: value, truncated: false}
  return {body: cutCopy(json, BODY_CAP), truncated: true}
}

/**
 * The body parsed, secrets redacted; none when it is no JSON, or nests deeper than any body of the API: its
 * entry, written out to a reader of the log or to a live stream, would overflow the stack (JSON.parse does not).
 */
function parsedBody(text: string): {value: unknown} | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return nestsPast(value, MAX_NESTING) ? undefined : {value: redactSecrets(value)}
}

/** The longest body the log keeps any of: an import's or an export's is longer. */
const KEPT_MAX = 1024 * 1024

/**
 * What a trace keeps of a body: the text while it is short; past BODY_CAP
 * only what the log will show of it, as text of its own (never the request's
 * string, nor a slice of it): the redacted JSON when it fits, else the cut
 * copy. So an entry holds at most 64 KiB of each body, whatever arrived.
 *
 * @example
 * keptBody('x'.repeat(1_000_000)) // {body: 'xxx…' (65,536 characters), truncated: true}
 */
export function keptBody(text: string | undefined): string | LoggedBody | undefined {
  if (text === undefined || text.length <= BODY_CAP) return text
  // an import's or an export's: parsing it to redact it could take gigabytes, or seconds, and the JSON
  // written again could pass the longest string V8 makes (1e20 is written with 21 digits)
  if (text.length > KEPT_MAX)
    return {body: `[not kept: a body of ${text.length} characters; the log keeps those up to 1 MiB]`, truncated: true}
  const shown = logBody(text)
  if (typeof shown.body === 'string')
    return shown.truncated ? shown : {body: cutCopy(shown.body, BODY_CAP), truncated: false}
  // parsed again when read: a string is what the log can count, where parsed JSON may cost ten times its text
  return JSON.stringify(shown.body)
}

/**
 * What a trace keeps of an error's message: a refusal may quote what was sent
 * (a key of a megabyte), so past BODY_CAP it is cut, as a body is, to text of its own.
 *
 * @example
 * keptMessage('Unrecognized key: "kkkk…"') // the message, at most 65,536 characters and '…'
 */
export const keptMessage = (message: string): string =>
  message.length <= BODY_CAP ? message : `${cutCopy(message, BODY_CAP)}…`

// Approximate sizes in V8, in bytes, from the heap's growth per entry on Node 20 (64-bit): what the request
// log's bound counts. A trace with its node in the log, its id and its time; a check version, and each of its
// items besides its name and note; a rendered entry's object, without its bodies.
const TRACE_BYTES = 500
const CHECK_BYTES = 450
const ITEM_BYTES = 150
const ENTRY_BYTES = 800

const textBytes = (body: string | LoggedBody | undefined): number =>
  body === undefined ? 0 : typeof body === 'string' ? body.length : typeof body.body === 'string' ? body.body.length : 0

function checkBytes(check: CheckRecord | undefined): number {
  if (!check) return 0
  let bytes = CHECK_BYTES
  for (const item of check.items) bytes += ITEM_BYTES + item.name.length + (item.note?.length ?? 0)
  return bytes
}

/**
 * What a trace holds in memory, roughly, in bytes: its texts (bodies as
 * kept, the path, the query, the message) and the check versions of a push.
 * Its rendered entry, once it is read, is counted apart (`renderedBytes`).
 * Cheap: it runs for every logged request.
 *
 * @example
 * traceBytes(trace) // 510 for a GET of /v1/checks with no body
 */
export function traceBytes(trace: RequestTrace): number {
  let bytes = TRACE_BYTES + trace.path.length + textBytes(trace.request_body) + textBytes(trace.response_body)
  if (trace.idempotency_key !== null) bytes += trace.idempotency_key.length
  if (trace.error) bytes += trace.error.message.length
  for (const name in trace.query) bytes += 32 + name.length + trace.query[name]!.length
  return bytes + checkBytes(trace.previous) + checkBytes(trace.next) + (trace.changes ? approxBytes(trace.changes) : 0)
}

/**
 * The trace as a note to the other instances carries it: a push's `changes`
 * rather than the check before and after, which were half a push's note
 * (docs/postgres.md, "The request log across instances").
 *
 * @example
 * shared.broadcast('request_trace', () => ({account_id, trace: sharedTrace(trace)}))
 */
export function sharedTrace(trace: RequestTrace): RequestTrace {
  const {previous, next, ...rest} = trace
  const changes = changesOf(trace)
  return changes ? {...rest, changes} : rest
}

/** What a push that updated its check changed: as a note carried it, or from the check before and after. */
function changesOf({changes, previous, next, push_result}: RequestTrace): CheckChanges | null {
  return changes ?? (previous && next && push_result === 'updated' ? checkChanges(previous, next) : null)
}

/**
 * What a rendered entry adds to its trace in memory, roughly, in bytes: its
 * object, the parsed bodies (a string body is the trace's own text) and
 * `changes`. Parsed JSON may take ten times its text (`[[],[],…]`), so it is
 * counted node by node.
 *
 * @example
 * renderedBytes(renderRequest(trace)) // 824 for an entry with no bodies
 */
export function renderedBytes(entry: RequestEntry): number {
  let bytes = ENTRY_BYTES + approxBytes(entry.changes)
  if (typeof entry.request_body !== 'string') bytes += approxBytes(entry.request_body)
  if (typeof entry.response_body !== 'string') bytes += approxBytes(entry.response_body)
  return bytes
}

/** A JSON value's size in V8, roughly, in bytes; walked without recursion, as a body may nest 30,000 deep. */
function approxBytes(value: unknown): number {
  let bytes = 0
  const pending = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (typeof item === 'string') {
      bytes += 16 + item.length
    } else if (Array.isArray(item)) {
      bytes += 32 + 8 * item.length
      for (const inner of item) pending.push(inner)
    } else if (item !== null && typeof item === 'object') {
      bytes += 32
      for (const [key, inner] of Object.entries(item)) {
        bytes += 24 + key.length
        pending.push(inner)
      }
    } else {
      bytes += 8
    }
  }
  return bytes
}

const shown = (body: string | LoggedBody | undefined): LoggedBody => (typeof body === 'object' ? body : logBody(body))

/**
 * The entry of a trace: bodies parsed and redacted, and the `changes` of a
 * push that updated a check.
 *
 * @example
 * const entry = renderRequest(trace) // {id: 'req_…', object: 'request', status: 201, …}
 */
export function renderRequest(trace: RequestTrace): RequestEntry {
  const {previous, next, changes, request_body, response_body, ...fields} = trace
  const request = shown(request_body)
  const response = shown(response_body)
  return {
    ...fields,
    // a refusal may quote what was sent (a malformed secret): its message is redacted like the bodies
    error: fields.error && {...fields.error, message: redactSecrets(fields.error.message) as string},
    object: 'request',
    request_body: request.body,
    request_body_truncated: request.truncated,
    response_body: response.body,
    response_body_truncated: response.truncated,
    changes: changesOf(trace),
  }
}

/** `tp_test_demo_write` → `tp_test_…rite`: enough to tell keys apart, never enough to use one. */
export const keyHint = (key: string): string => `tp_test_…${key.slice(-4)}`

// `xx` in any case, without the `i` flag a JSON Schema pattern cannot carry
const STATUS_FILTER = /^[1-5]([0-9]{2}|[Xx]{2})$/

/** The filters of `GET /v1/sim/requests` and `tablepay logs`, besides the list query. */
export const RequestFilters = z.object({
  status: z
    .string()
    .regex(STATUS_FILTER, 'a status (422) or a class (4xx)')
    .describe('A status (`422`) or a class (`4xx`, any case)')
    .optional(),
  method: z.string().min(1).max(10).optional(),
  path: z
    .string()
    .min(1)
    .max(MAX_PATH_FILTER)
    // with a `*`, a pattern by a fault's rules: else `/v1/**/claims` would match every path, `v1/*` none
    .superRefine((path, context) => {
      const problem = path.includes('*') ? pathPatternProblem(path) : undefined
      if (problem) context.addIssue({code: 'custom', message: problem})
    })
    .describe('A prefix (`/v1/checks`), or a pattern as a fault matches paths (`/v1/checks/*/claims`)')
    .optional(),
  check_id: z.string().min(1).optional(),
  error_code: z.string().min(1).optional(),
})
export type RequestFilters = z.infer<typeof RequestFilters>

/**
 * Whether a trace passes the filters: `status` exact or by class (`4xx`),
 * `method` in any case, `path` a prefix or, holding a `*`, a pattern as a fault's (`pathMatches`).
 *
 * @example
 * requestMatches(trace, {status: '4xx', path: '/v1/checks'})
 */
export function requestMatches(
  trace: Pick<RequestTrace, 'status' | 'method' | 'path' | 'check_id' | 'error'>,
  filters: RequestFilters,
): boolean {
  const {status, method, path, check_id, error_code} = filters
  if (status !== undefined) {
    const got = trace.status === null ? '' : String(trace.status)
    if (status.toLowerCase().endsWith('xx') ? got[0] !== status[0] : got !== status) return false
  }
  if (method !== undefined && trace.method !== method.toUpperCase()) return false
  if (path !== undefined && !(path.includes('*') ? pathMatches(path, trace.path) : trace.path.startsWith(path)))
    return false
  if (check_id !== undefined && trace.check_id !== check_id) return false
  if (error_code !== undefined && trace.error?.code !== error_code) return false
  return true
}

/** The JSON of `value` in UTF-8 bytes. */
const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

/** A body as a bounded note shows it: the start of its JSON text, `truncated`. */
function cutBody(body: unknown, truncated: boolean, chars: number): {body: unknown; truncated: boolean} {
  if (body === null) return {body, truncated}
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return text.length <= chars ? {body, truncated} : {body: text.slice(0, chars), truncated: true}
}

/**
 * The entry within `maxBytes` of JSON, for the other instances on one
 * database (docs/postgres.md): the bodies cut to the start of their text
 * (marked `…_truncated`, as a body past 64 KiB is), then `changes` dropped;
 * undefined when even that does not fit.
 *
 * @example
 * const note = boundedEntry(renderRequest(trace), 7000)
 */
export function boundedEntry(entry: RequestEntry, maxBytes: number): RequestEntry | undefined {
  if (jsonBytes(entry) <= maxBytes) return entry
  for (const changes of [entry.changes, null]) {
    for (const chars of [2000, 500, 0]) {
      const request = cutBody(entry.request_body, entry.request_body_truncated, chars)
      const response = cutBody(entry.response_body, entry.response_body_truncated, chars)
      const cut: RequestEntry = {
        ...entry,
        request_body: request.body,
        request_body_truncated: request.truncated,
        response_body: response.body,
        response_body_truncated: response.truncated,
        changes,
      }
      if (jsonBytes(cut) <= maxBytes) return cut
    }
  }
  return undefined
}

/**
 * A trace that renders as `entry`, for a log that keeps another instance's
 * entries beside its own (the bodies as rendered; `changes` comes with the
 * entry itself).
 *
 * @example
 * log.record(accountId, traceOf(entry), entry)
 */
export function traceOf(entry: RequestEntry): RequestTrace {
  const {
    object: _object,
    request_body,
    request_body_truncated,
    response_body,
    response_body_truncated,
    changes: _changes,
    ...fields
  } = entry
  return {
    ...fields,
    request_body: {body: request_body, truncated: request_body_truncated},
    response_body: {body: response_body, truncated: response_body_truncated},
  }
}
