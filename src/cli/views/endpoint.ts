import type {WebhookEndpoint, WebhookTestResult} from '../../client/client.js'
import {style} from './style.js'
import {type Column, renderTable} from './table.js'

const COLUMNS: Column<WebhookEndpoint>[] = [
  {header: 'ID', value: (e) => e.id},
  {
    header: 'STATUS',
    value: (e) => e.status,
    color: (text, e) => (e.status === 'enabled' ? style.green(text) : style.red(text)),
  },
  {header: 'EVENTS', value: (e) => e.event_types.join(',')},
  {header: 'URL', value: (e) => e.url},
]

export function renderEndpointList(endpoints: readonly WebhookEndpoint[]): string {
  return renderTable(endpoints, COLUMNS)
}

/** A new endpoint, with the secret that is shown this once and never again. */
export function renderCreatedEndpoint(endpoint: WebhookEndpoint & {secret: string}): string {
  return [
    `${style.green('created')} ${endpoint.id} → ${endpoint.url}`,
    `Events: ${endpoint.event_types.join(', ')}`,
    `Signing secret: ${style.bold(endpoint.secret)}`,
    style.yellow('This is the only time the secret is shown: keep it now (the receiver verifies signatures with it).'),
  ].join('\n')
}

/** How the receiver answered a ping, and what to look at when it did not accept it. */
export function renderTestResult(result: WebhookTestResult): string {
  const answer = result.status_code === null ? 'no answer' : `answered ${result.status_code}`
  if (result.succeeded)
    return `${style.green('ok')} ${result.endpoint_id} ${answer} in ${result.duration_ms} ms (ping ${result.event_id})`
  const body = result.response_body ? `\nIts answer: ${result.response_body.slice(0, 300)}` : ''
  const refused =
    result.error === 'ECONNREFUSED'
      ? "\nNothing listens at the endpoint's URL (`tablepay webhooks list` shows it): start your receiver, then ping again."
      : ''
  return `${style.red('failed')} ${result.endpoint_id} ${answer} after ${result.duration_ms} ms: ${result.error}${body}${refused}`
}
