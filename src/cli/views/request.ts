import type {RequestEntry} from '../../client/client.js'
import type {AccessLine} from '../../domain/request-log.js'
import {formatTime} from './format.js'
import {printable, printableLines} from './printable.js'
import {style} from './style.js'

/** What one request line shows: the access line of `serve` and each line of `logs tail` and `logs list`. */
export type RequestLineFields = AccessLine

const statusColor = (status: number | null) =>
  status === null || status >= 500 ? style.red : status >= 400 ? style.yellow : style.green

/**
 * One request in one line: `10:03:27 PUT /v1/checks/external/t12 201 created 3 ms req_…`,
 * then the error code or the fault when there is one. What the caller sent
 * (the path above all) is shown printable: it cannot act on the terminal.
 *
 * @example
 * renderRequestLine(fieldsOf(entry))
 */
export function renderRequestLine(line: RequestLineFields): string {
  const status = line.status === null ? 'reset' : String(line.status)
  const outcome = line.push_result ?? line.error_code
  const parts = [
    style.dim(formatTime(line.created_at)),
    printable(line.method),
    printable(line.path),
    statusColor(line.status)(status),
    ...(outcome ? [printable(outcome)] : []),
    `${Math.round(line.duration_ms)} ms`,
    style.dim(printable(line.request_id)),
    ...(line.fault_id ? [style.magenta(`fault ${printable(line.fault_id)}`)] : []),
  ]
  return parts.join(' ')
}

/** The line fields of a logged request. */
export const fieldsOf = (entry: RequestEntry): RequestLineFields => ({
  created_at: entry.created_at,
  method: entry.method,
  path: entry.path,
  status: entry.status,
  push_result: entry.push_result,
  error_code: entry.error?.code ?? null,
  duration_ms: entry.duration_ms,
  request_id: entry.id,
  fault_id: entry.fault_id,
})

/** A value as indented JSON, printable: JSON escapes C0 in its strings, not DEL and C1. */
const json = (value: unknown) => printableLines(JSON.stringify(value, null, 2))

/** `logs get`: the request, the answer and what a push moved, for a person to read; all it shows is printable. */
export function renderRequestDetail(entry: RequestEntry): string {
  const query = new URLSearchParams(entry.query).toString()
  const key = printable(entry.key_hint)
  const lines = [
    renderRequestLine(fieldsOf(entry)),
    '',
    style.bold('Request'),
    printable(`${entry.method} ${entry.path}${query ? `?${query}` : ''}`),
    `key ${key}${entry.idempotency_key ? `  Idempotency-Key: ${printable(entry.idempotency_key)}` : ''}`,
    entry.request_body === null ? style.dim('(no body)') : json(entry.request_body),
    ...(entry.request_body_truncated ? [style.dim('(cut at 64 KiB)')] : []),
    '',
    style.bold(`Answer ${entry.status ?? '(none: the connection was reset)'}`),
    ...(entry.error ? [style.red(printable(`${entry.error.code}: ${entry.error.message}`))] : []),
    entry.response_body === null ? style.dim('(no body)') : json(entry.response_body),
    ...(entry.response_body_truncated ? [style.dim('(cut at 64 KiB)')] : []),
  ]
  if (entry.check_id)
    lines.push('', printable(`check ${entry.check_id}${entry.push_result ? ` (${entry.push_result})` : ''}`))
  if (entry.fault_id) lines.push(style.magenta(`fault ${printable(entry.fault_id)} answered this request`))
  if (entry.changes) lines.push('', style.bold('Changes'), ...renderChanges(entry.changes))
  return lines.join('\n')
}

function renderChanges(changes: NonNullable<RequestEntry['changes']>): string[] {
  const out: string[] = []
  const {items, ...fields} = changes
  for (const [name, moved] of Object.entries(fields)) {
    const [from, to] = moved as [unknown, unknown]
    out.push(printable(`  ${name}: ${JSON.stringify(from)} → ${JSON.stringify(to)}`))
  }
  for (const id of items.added) out.push(style.green(printable(`  + item ${id}`)))
  for (const id of items.removed) out.push(style.red(printable(`  - item ${id}`)))
  for (const {external_id, fields: moved} of items.changed) {
    const what = Object.entries(moved).map(
      ([name, [from, to]]) => `${name} ${JSON.stringify(from)} → ${JSON.stringify(to)}`,
    )
    out.push(printable(`  ~ item ${external_id}: ${what.join(', ')}`))
  }
  return out.length > 0 ? out : ['  (nothing the POS owns moved)']
}
