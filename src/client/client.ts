import type {Check, CheckPush, Event, Location} from '../domain/schemas.js'
import {TablepayApiError, TablepayConnectionError, type TablepayErrorBody} from './errors.js'

export type {Check, CheckPush, Event, Location}

/** How a push changed the stored check (header `X-Tablepay-Push-Result`). */
export type PushResult = 'created' | 'updated' | 'unchanged' | 'stale'

/** Every list answer of the API. Pass `next_cursor` as `starting_after` for the next page. */
export interface List<T> {
  object: 'list'
  data: T[]
  has_more: boolean
  next_cursor: string | null
}

export interface ListParams {
  /** 1-100, server default 20. */
  limit?: number
  starting_after?: string
}

export interface PushAnswer {
  check: Check
  result: PushResult
  /** 201 when created, 200 otherwise. */
  status: number
}

export interface ClientOptions {
  /** Base URL, e.g. `http://127.0.0.1:4747`; the client appends `/v1`. */
  url: string
  apiKey: string
}

type Query = Record<string, string | number | undefined>

/**
 * Typed client of the Tablepay API, on the global `fetch`. Every non-2xx
 * answer throws a `TablepayApiError`; no answer at all throws a
 * `TablepayConnectionError`.
 *
 * @example
 * const client = new TablepayClient({url: 'http://127.0.0.1:4747', apiKey: 'tp_test_demo_write'})
 * const {check, result} = await client.pushCheck('t12', body) // result: 'created'
 */
export class TablepayClient {
  readonly url: string
  readonly #apiKey: string

  constructor({url, apiKey}: ClientOptions) {
    // serve prints its URL with /v1; accept it as copied
    this.url = url.replace(/\/+$/, '').replace(/\/v1$/, '')
    this.#apiKey = apiKey
  }

  async listLocations(): Promise<List<Location>> {
    return (await this.request<List<Location>>('GET', '/locations')).data
  }

  /** Sends the complete current state of the check whose POS id is `externalId`. */
  async pushCheck(externalId: string, body: CheckPush): Promise<PushAnswer> {
    const {data, headers, status} = await this.request<Check>('PUT', `/checks/external/${encodeURIComponent(externalId)}`, {body})
    return {check: data, result: headers.get('x-tablepay-push-result') as PushResult, status}
  }

  async getCheck(id: string): Promise<Check> {
    return (await this.request<Check>('GET', `/checks/${encodeURIComponent(id)}`)).data
  }

  async getCheckByExternalId(externalId: string): Promise<Check> {
    return (await this.request<Check>('GET', `/checks/external/${encodeURIComponent(externalId)}`)).data
  }

  async listChecks(params: ListParams & {status?: Check['status']} = {}): Promise<List<Check>> {
    return (await this.request<List<Check>>('GET', '/checks', {query: {...params}})).data
  }

  async listEvents(params: ListParams & {type?: Event['type']} = {}): Promise<List<Event>> {
    return (await this.request<List<Event>>('GET', '/events', {query: {...params}})).data
  }

  async getEvent(id: string): Promise<Event> {
    return (await this.request<Event>('GET', `/events/${encodeURIComponent(id)}`)).data
  }

  private async request<T>(method: string, path: string, {query, body}: {query?: Query; body?: unknown} = {}) {
    const url = `${this.url}/v1${path}${queryString(query)}`
    const headers: Record<string, string> = {authorization: `Bearer ${this.#apiKey}`, accept: 'application/json'}
    if (body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetch(url, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)})
    } catch (error) {
      throw new TablepayConnectionError(this.url, error)
    }
    if (!response.ok) throw await apiError(response)
    return {data: (await response.json()) as T, headers: response.headers, status: response.status}
  }
}

function queryString(query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

// Something other than tablepay may answer (a proxy, another service on the
// port): its body is not ours, so fall back to the HTTP status.
async function apiError(response: Response): Promise<TablepayApiError> {
  const text = await response.text()
  let body: Partial<TablepayErrorBody> = {}
  try {
    body = JSON.parse(text) as TablepayErrorBody
  } catch {}
  const error = body.error ?? {code: `http_${response.status}`, message: `HTTP ${response.status} ${response.statusText} from ${response.url}: ${text.slice(0, 200)}`}
  return new TablepayApiError(response.status, {...error, request_id: error.request_id ?? response.headers.get('x-request-id') ?? undefined})
}
