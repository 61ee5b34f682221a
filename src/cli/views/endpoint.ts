import type {Chaos, Recovery, WebhookEndpoint, WebhookTestResult} from '../../client/client.js'
import {EVENT_TYPES} from '../../domain/constants.js'
import {formatDuration} from '../../domain/duration.js'
import {style} from './style.js'
import {type Column, renderTable} from './table.js'
import {printable} from './printable.js'
import {firstLine} from './delivery.js'
import {receiverHint} from '../../shared/network-reason.js'

const COLUMNS: Column<WebhookEndpoint>[] = [
  {header: 'ID', value: (e) => e.id},
  {
    header: 'STATUS',
    value: (e) => e.status,
    color: (text, e) => (e.status === 'enabled' ? style.green(text) : style.red(text)),
  },
  // every type listed would make the table some 200 columns wide
  {header: 'EVENTS', value: (e) => (takesEveryType(e) ? `all (${EVENT_TYPES.length})` : e.event_types.join(','))},
  {header: 'URL', value: (e) => e.url},
]

const takesEveryType = (e: WebhookEndpoint) => EVENT_TYPES.every((type) => e.event_types.includes(type))

export function renderEndpointList(endpoints: readonly WebhookEndpoint[]): string {
  return renderTable(endpoints, COLUMNS)
}

/** A new endpoint, with the secret that is shown this once and never again. */
export function renderCreatedEndpoint(endpoint: WebhookEndpoint & {secret: string}): string {
  return [
    `${style.green('created')} ${printable(`${endpoint.id} → ${endpoint.url}`)}`,
    printable(`Events: ${endpoint.event_types.join(', ')}`),
    `Signing secret: ${style.bold(printable(endpoint.secret))}`,
    style.yellow('This is the only time the secret is shown: keep it now (the receiver verifies signatures with it).'),
  ].join('\n')
}

/** How the receiver answered a ping, and what to look at when it did not accept it. */
export function renderTestResult(result: WebhookTestResult): string {
  const answer = result.status_code === null ? 'no answer' : `answered ${result.status_code}`
  const endpoint = printable(result.endpoint_id)
  if (result.succeeded)
    return `${style.green('ok')} ${endpoint} ${answer} in ${result.duration_ms} ms (ping ${printable(result.event_id)})`
  // the receiver's answer, whatever it holds, cannot act on the terminal
  const line = firstLine(result.response_body)
  const body = line ? `\nIts answer: ${line}` : ''
  const next =
    result.error === 'ECONNREFUSED'
      ? "Nothing listens at the endpoint's URL (`tablepay webhooks list` shows it): start your receiver, then ping again."
      : receiverHint(result.error ?? '')
  const error = printable(result.error ?? '')
  return `${style.red('failed')} ${endpoint} ${answer} after ${result.duration_ms} ms: ${error}${body}${next ? `\n${next}` : ''}`
}

// The receiver side: rotation, updates, recovery and chaos.

/** A rotation's answer: the new secret, shown this once, and how long the old one still signs. */
export function renderRotatedEndpoint(endpoint: WebhookEndpoint & {secret: string}, overlapSeconds: number): string {
  const overlap =
    overlapSeconds > 0
      ? `The old secret signs beside it for ${formatDuration(overlapSeconds)} more on the scheduler clock: deploy the new one to your receiver before then.`
      : 'The old secret no longer signs.'
  return [
    `${style.green('rotated')} ${printable(`${endpoint.id} → ${endpoint.url}`)}`,
    `New signing secret: ${style.bold(printable(endpoint.secret))}`,
    overlap,
    style.yellow('This is the only time the new secret is shown: keep it now.'),
  ].join('\n')
}

/** An endpoint after an update. */
export function renderEndpoint(endpoint: WebhookEndpoint): string {
  const status = endpoint.status === 'enabled' ? style.green(endpoint.status) : style.red(endpoint.status)
  return [
    `${style.bold(printable(endpoint.id))}  ${status} → ${printable(endpoint.url)}`,
    printable(`Events: ${endpoint.event_types.join(', ')}`),
    ...(endpoint.description ? [printable(`Description: ${endpoint.description}`)] : []),
  ].join('\n')
}

export function renderRecovery(recovery: Recovery): string {
  const what = recovery.event_count === 1 ? '1 event' : `${recovery.event_count} events`
  const since = printable(`${recovery.since} for ${recovery.endpoint_id}`)
  return `${style.green('queued')} ${what} since ${since}, oldest first.`
}

/** An endpoint's delivery chaos, with the seed that repeats it. */
export function renderChaos(chaos: Chaos): string {
  if (!chaos.enabled) return `${printable(chaos.endpoint_id)}: no delivery chaos.`
  const parts = [
    `duplicate ${chaos.duplicate}`,
    `reorder window ${formatDuration(chaos.reorder_window_s)}`,
    `seed ${chaos.seed} (--seed ${chaos.seed} repeats it)`,
  ]
  return `${printable(chaos.endpoint_id)}: ${style.yellow('delivery chaos')}: ${parts.join(', ')}.`
}
