import type {Delivery} from '../../client/client.js'
import {formatDuration} from '../../domain/duration.js'
import {formatDateTime, formatTime} from './format.js'
import {style} from './style.js'
import {type Column, renderTable} from './table.js'
import type {DeliveryAttempt} from '../../domain/schemas.js'
import {printable} from './printable.js'

const STATUS_COLOR: Record<Delivery['status'], (text: string) => string> = {
  pending: style.yellow,
  succeeded: style.green,
  dead: style.red,
  canceled: style.dim,
  superseded: style.dim,
}

/** Its status, and for a superseded one the delivery that succeeded in its place. */
const statusOf = (d: Delivery) => (d.superseded_by ? `${d.status} by ${printable(d.superseded_by)}` : d.status)

const attemptOk = (a: DeliveryAttempt) => a.error === null

/** The receiver's answer in a few characters: its status code, or `no answer`. */
function answerOf(attempt: DeliveryAttempt): string {
  return attempt.status_code === null ? 'no answer' : String(attempt.status_code)
}

/** What the receiver said: the first line of a failed attempt's answer, quoted, cut to 120 characters, printable. */
export function answerFirstLine(attempt: DeliveryAttempt): string {
  return attemptOk(attempt) ? '' : firstLine(attempt.response_body)
}

/** The first line of a receiver's answer that holds anything, quoted, cut to 120 characters, printable. */
export function firstLine(body: string | null | undefined): string {
  const line = body
    ?.split(/\r?\n/)
    .map((l) => l.trim())
    .find(Boolean)
  if (!line) return ''
  return printable(JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line))
}

/**
 * How far the next attempt is after `attempt` was due, on the scheduler
 * clock: `5m`. A date alone looks wrong once the clock has been advanced;
 * the distance does not (docs/api.md "Webhooks", the scheduler clock).
 */
function waitAfter(attempt: DeliveryAttempt, next: string): string {
  return formatDuration(Math.max((Date.parse(next) - Date.parse(attempt.scheduled_at)) / 1000, 0))
}

/** What follows a failed attempt: the next try, or the end. */
function outlook(delivery: Delivery, attempt: DeliveryAttempt): string {
  if (delivery.status !== 'pending') return delivery.status
  const next = delivery.next_attempt_at
  return next
    ? `retry in ${waitAfter(attempt, next)} on the scheduler clock (at ${formatDateTime(next)})`
    : 'retry pending'
}

/**
 * One line per attempt, for `deliveries tail` and `listen`: time, event
 * type, endpoint, answer, duration, and what happens next when it failed.
 */
export function renderAttemptLine(delivery: Delivery, attempt: DeliveryAttempt): string {
  const ok = attemptOk(attempt)
  const answer = ok ? style.green(answerOf(attempt)) : style.red(answerOf(attempt))
  const said = answerFirstLine(attempt)
  const error = printable(attempt.error ?? '')
  const tail = ok
    ? ''
    : `  ${style.red(error)}${said ? `  ${said}` : ''}  ${style.dim(`→ ${outlook(delivery, attempt)}`)}`
  const duplicate = attempt.duplicate ? style.yellow('  duplicate') : ''
  const where = `${printable(delivery.event_type).padEnd(17)}  ${printable(delivery.endpoint_id)}`
  const which = style.dim(`#${attempt.attempt} ${printable(delivery.id)}`)
  return (
    `${style.dim(formatTime(attempt.at))}  ${where}  ${answer.padEnd(3)}  ` +
    `${String(attempt.duration_ms).padStart(4)} ms  ${which}${duplicate}${tail}`
  )
}

/** The JSON line `--json` prints per attempt: the attempt, with the delivery it belongs to. */
export function attemptJson(delivery: Delivery, attempt: DeliveryAttempt) {
  return {
    delivery_id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    endpoint_id: delivery.endpoint_id,
    ...attempt,
    delivery_status: delivery.status,
    next_attempt_at: delivery.next_attempt_at,
  }
}

const LIST_COLUMNS: Column<Delivery>[] = [
  {header: 'ID', value: (d) => d.id},
  {header: 'EVENT TYPE', value: (d) => d.event_type},
  {header: 'ENDPOINT', value: (d) => d.endpoint_id},
  {header: 'STATUS', value: statusOf, color: (text, d) => STATUS_COLOR[d.status](text)},
  {header: 'ATTEMPTS', value: (d) => String(d.attempts.length), align: 'right'},
  {header: 'LAST ANSWER', value: (d) => (d.attempts.length > 0 ? answerOf(d.attempts.at(-1)!) : '-')},
  {header: 'NEXT ATTEMPT', value: (d) => (d.next_attempt_at ? formatDateTime(d.next_attempt_at) : '-')},
]

export function renderDeliveryList(deliveries: readonly Delivery[]): string {
  return renderTable(deliveries, LIST_COLUMNS)
}

const ATTEMPT_COLUMNS: Column<DeliveryAttempt>[] = [
  {header: '#', value: (a) => `${a.attempt}${a.duplicate ? ' dup' : ''}`, align: 'right'},
  {header: 'AT', value: (a) => formatDateTime(a.at)},
  {header: 'DUE (CLOCK)', value: (a) => formatDateTime(a.scheduled_at)},
  {header: 'ANSWER', value: answerOf, color: (text, a) => (attemptOk(a) ? style.green(text) : style.red(text))},
  {header: 'MS', value: (a) => String(a.duration_ms), align: 'right'},
  {header: 'ERROR', value: (a) => [a.error ?? '', answerFirstLine(a)].filter(Boolean).join('  ')},
]

/** A delivery with every attempt, as `deliveries get` and `deliveries retry` show it. */
export function renderDeliveryDetail(delivery: Delivery): string {
  const status = STATUS_COLOR[delivery.status](statusOf(delivery))
  const event = style.dim(printable(delivery.event_id))
  const about = `${printable(delivery.event_type)} ${event} → ${printable(delivery.endpoint_id)}`
  const head = `${style.bold(printable(delivery.id))}  ${status}  ${about}`
  const last = delivery.attempts.at(-1)
  const after =
    last && delivery.next_attempt_at
      ? `, ${waitAfter(last, delivery.next_attempt_at)} after #${last.attempt} was due`
      : ''
  const next = delivery.next_attempt_at
    ? `Next attempt at ${formatDateTime(delivery.next_attempt_at)} (scheduler clock)${after}`
    : ''
  const attempts =
    delivery.attempts.length > 0 ? renderTable(delivery.attempts, ATTEMPT_COLUMNS) : style.dim('No attempts yet.')
  return [head, next, attempts].filter(Boolean).join('\n')
}

/**
 * After `deliveries retry` saw its attempt fail: what the receiver did, and what to do next.
 *
 * @example
 * renderRetryFailed(delivery) // 'Attempt #2 failed (500): fix the receiver, then retry again: …'
 */
export function renderRetryFailed(delivery: Delivery): string {
  const last = delivery.attempts.at(-1)
  const answer = last ? ` (${answerOf(last)})` : ''
  const retry = `tablepay deliveries retry ${printable(delivery.id)}`
  return `${style.red(`Attempt #${last?.attempt ?? '?'} failed${answer}`)}: fix the receiver, then retry again: \`${retry}\`.`
}
