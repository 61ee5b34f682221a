import type {
  Chaos,
  ChaosInput,
  Check,
  CheckPush,
  Claim,
  ClaimInput,
  Clock,
  Deleted,
  Delivery,
  Event,
  Feedback,
  FeedbackInput,
  KnownSecretEndpointInput,
  ListenSecret,
  Location,
  Payment,
  PaymentInput,
  Recovery,
  RefundInput,
  ScratchAccount,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointUpdate,
  WebhookTestResult,
} from '../domain/schemas.js'
import type {PushResult} from '../domain/push.js'
import type {Fault, FaultInput} from '../domain/faults.js'
import type {RequestEntry, RequestFilters} from '../domain/request-log.js'
import {
  TablepayApiError,
  TablepayConnectionError,
  TablepayError,
  type TablepayErrorBody,
  TablepayTimeoutError,
  TablepayUnexpectedAnswerError,
} from './errors.js'
import {serverBase} from '../shared/server-url.js'
import {readServerSentEvents, type RequestStreamMessage, type StreamMessage} from './stream.js'

// the resources and inputs of the API, as the client takes and returns them
export type {
  Chaos,
  ChaosInput,
  Check,
  CheckPush,
  Claim,
  ClaimInput,
  Clock,
  Deleted,
  Delivery,
  Event,
  Feedback,
  FeedbackInput,
  KnownSecretEndpointInput,
  ListenSecret,
  Location,
  Payment,
  PaymentInput,
  Recovery,
  RefundInput,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointUpdate,
  WebhookTestResult,
}
export type {Fault, FaultInput, RequestEntry, RequestFilters, RequestStreamMessage, StreamMessage}

/** Options of the guest-side POSTs: an `Idempotency-Key`, so a retried call acts once. */
export interface GuestOptions {
  idempotencyKey?: string
}

// how a push changed the stored check, as header X-Tablepay-Push-Result says
export type {PushResult}

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
  /** The fetch to send with (default: the global one, looked up on each call): a test can pass a handler directly. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>
  /**
   * How long to wait for each answer, in ms (a stream: for it to open); 0 or
   * none waits as long as it takes. Past it the request fails with a
   * `TablepayTimeoutError` (code `server_timeout`).
   */
  timeoutMs?: number
}

type Query = Record<string, string | number | undefined>

/**
 * Typed client of the Tablepay API, on the global `fetch`. Every non-2xx
 * answer throws a `TablepayApiError`; no answer at all throws a
 * `TablepayConnectionError`, an answer later than `timeoutMs` a
 * `TablepayTimeoutError`.
 *
 * @example
 * const client = new TablepayClient({url: 'http://127.0.0.1:4747', apiKey: 'tp_test_demo_write'})
 * const {check, result} = await client.pushCheck('t12', body) // result: 'created'
 */
export class TablepayClient {
  readonly url: string
  readonly #apiKey: string
  readonly #fetch: NonNullable<ClientOptions['fetch']>
  readonly timeoutMs: number

  constructor({url, apiKey, fetch: send, timeoutMs = 0}: ClientOptions) {
    this.url = serverBase(url)
    this.#apiKey = apiKey
    // looked up per call, so a fetch patched later (msw) is the one used
    this.#fetch = send ?? ((input, init) => fetch(input, init))
    this.timeoutMs = timeoutMs
  }

  /** The same client (server, fetch, timeout) with another API key: a scratch account's. */
  withApiKey(apiKey: string): TablepayClient {
    return new TablepayClient({url: this.url, apiKey, fetch: this.#fetch, timeoutMs: this.timeoutMs})
  }

  async listLocations(): Promise<List<Location>> {
    return (await this.request<List<Location>>('GET', '/locations')).data
  }

  /** Sends the complete current state of the check whose POS id is `externalId`. */
  async pushCheck(externalId: string, body: CheckPush): Promise<PushAnswer> {
    const {data, headers, status} = await this.request<Check>(
      'PUT',
      `/checks/external/${encodeURIComponent(externalId)}`,
      {body},
    )
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

  /** A simulated guest claims units of a check's items (all or nothing). */
  async claim(checkId: string, input: ClaimInput, options: GuestOptions = {}): Promise<Claim> {
    return (
      await this.request<Claim>('POST', `/sim/checks/${encodeURIComponent(checkId)}/claims`, {body: input, ...options})
    ).data
  }

  /** A simulated guest pays `amount_cents` (at most what is due) plus an optional tip. */
  async pay(checkId: string, input: PaymentInput, options: GuestOptions = {}): Promise<Payment> {
    return (
      await this.request<Payment>('POST', `/sim/checks/${encodeURIComponent(checkId)}/payments`, {
        body: input,
        ...options,
      })
    ).data
  }

  /** Refunds `amount_cents` of a payment, or everything left without it. */
  async refund(paymentId: string, input: RefundInput = {}, options: GuestOptions = {}): Promise<Payment> {
    return (
      await this.request<Payment>('POST', `/sim/payments/${encodeURIComponent(paymentId)}/refund`, {
        body: input,
        ...options,
      })
    ).data
  }

  /** A simulated guest rates the visit (1-5) with an optional comment. */
  async feedback(checkId: string, input: FeedbackInput, options: GuestOptions = {}): Promise<Feedback> {
    return (
      await this.request<Feedback>('POST', `/sim/checks/${encodeURIComponent(checkId)}/feedback`, {
        body: input,
        ...options,
      })
    ).data
  }

  async getClaim(id: string): Promise<Claim> {
    return (await this.request<Claim>('GET', `/claims/${encodeURIComponent(id)}`)).data
  }

  async getPayment(id: string): Promise<Payment> {
    return (await this.request<Payment>('GET', `/payments/${encodeURIComponent(id)}`)).data
  }

  async getFeedback(id: string): Promise<Feedback> {
    return (await this.request<Feedback>('GET', `/feedback/${encodeURIComponent(id)}`)).data
  }

  async listClaims(checkId: string, params: ListParams = {}): Promise<List<Claim>> {
    return (
      await this.request<List<Claim>>('GET', `/checks/${encodeURIComponent(checkId)}/claims`, {query: {...params}})
    ).data
  }

  async listPayments(checkId: string, params: ListParams = {}): Promise<List<Payment>> {
    return (
      await this.request<List<Payment>>('GET', `/checks/${encodeURIComponent(checkId)}/payments`, {query: {...params}})
    ).data
  }

  async listFeedback(checkId: string, params: ListParams = {}): Promise<List<Feedback>> {
    return (
      await this.request<List<Feedback>>('GET', `/checks/${encodeURIComponent(checkId)}/feedback`, {query: {...params}})
    ).data
  }

  /** Registers an endpoint; the answer is the only one that carries its `secret`. */
  async createWebhookEndpoint(input: WebhookEndpointInput): Promise<WebhookEndpoint & {secret: string}> {
    return (await this.request<WebhookEndpoint & {secret: string}>('POST', '/webhook-endpoints', {body: input})).data
  }

  async listWebhookEndpoints(params: ListParams = {}): Promise<List<WebhookEndpoint>> {
    return (await this.request<List<WebhookEndpoint>>('GET', '/webhook-endpoints', {query: {...params}})).data
  }

  async getWebhookEndpoint(id: string): Promise<WebhookEndpoint> {
    return (await this.request<WebhookEndpoint>('GET', `/webhook-endpoints/${encodeURIComponent(id)}`)).data
  }

  async deleteWebhookEndpoint(id: string): Promise<Deleted> {
    return (await this.request<Deleted>('DELETE', `/webhook-endpoints/${encodeURIComponent(id)}`)).data
  }

  /** Sends a signed `ping` to the endpoint now and reports how the receiver answered. */
  async testWebhookEndpoint(id: string): Promise<WebhookTestResult> {
    return (await this.request<WebhookTestResult>('POST', `/webhook-endpoints/${encodeURIComponent(id)}/test`)).data
  }

  async listDeliveries(
    params: ListParams & {endpoint_id?: string; event_id?: string; status?: Delivery['status']} = {},
  ): Promise<List<Delivery>> {
    return (await this.request<List<Delivery>>('GET', '/deliveries', {query: {...params}})).data
  }

  async getDelivery(id: string): Promise<Delivery> {
    return (await this.request<Delivery>('GET', `/deliveries/${encodeURIComponent(id)}`)).data
  }

  /** Queues one more attempt now, whatever the delivery's state. */
  async retryDelivery(id: string): Promise<Delivery> {
    return (await this.request<Delivery>('POST', `/deliveries/${encodeURIComponent(id)}/retry`)).data
  }

  async getClock(): Promise<Clock> {
    return (await this.request<Clock>('GET', '/sim/clock')).data
  }

  /** Moves the scheduler clock forward and resolves once every attempt that fell due has run. */
  async advanceClock(seconds: number): Promise<Clock & {attempts: number}> {
    return (await this.request<Clock & {attempts: number}>('POST', '/sim/clock/advance', {body: {seconds}})).data
  }

  /** Puts the scheduler clock back on the wall clock; pending deliveries keep their due times. */
  async resetClock(): Promise<Clock> {
    return (await this.request<Clock>('POST', '/sim/clock/reset')).data
  }

  /** Deletes the account's checks and what hangs off them (`POST /sim/reset`); keys, locations and endpoints stay. */
  async reset(): Promise<{object: 'reset'; deleted: Record<string, number>}> {
    return (await this.request<{object: 'reset'; deleted: Record<string, number>}>('POST', '/sim/reset')).data
  }

  /**
   * Opens the account's live feed of new events and delivery changes
   * (`GET /sim/stream`). Resolves once the server has accepted it, so what
   * happens from then on is seen; the messages end when `signal` aborts or
   * the server stops.
   *
   * @example
   * const messages = await client.openStream({signal})
   * for await (const message of messages) if (message.type === 'delivery') console.log(message.data.status)
   */
  async openStream({signal}: {signal?: AbortSignal} = {}): Promise<AsyncGenerator<StreamMessage>> {
    return readServerSentEvents(await this.#stream(signal), signal)
  }

  /** `GET /v1/sim/stream`, answered: the caller reads its messages. */
  async #stream(signal: AbortSignal | undefined): Promise<Response> {
    // the timeout covers the answer's start only: a stream then stays open for as long as the caller reads
    const opening = this.timeoutMs > 0 ? new AbortController() : undefined
    const timer = opening && setTimeout(() => opening.abort(), this.timeoutMs)
    const either = opening && signal ? AbortSignal.any([signal, opening.signal]) : (opening?.signal ?? signal)
    try {
      return await this.#answer(
        `${this.url}/v1/sim/stream`,
        {
          headers: {authorization: `Bearer ${this.#apiKey}`, accept: 'text/event-stream'},
          signal: either,
        },
        opening?.signal,
      )
    } finally {
      clearTimeout(timer)
    }
  }

  /** A 2xx answer's response; else the API's error, or why there was none (`timeout` aborts when it runs out). */
  async #answer(url: string, init: RequestInit, timeout: AbortSignal | undefined): Promise<Response> {
    let response: Response
    try {
      response = await this.#fetch(url, init)
    } catch (error) {
      throw this.#unanswered(error, timeout)
    }
    // an error body cut off by the timeout, or by the connection, is no answer either
    if (!response.ok) throw await apiError(response).catch((error: unknown) => this.#unanswered(error, timeout))
    return response
  }

  #unanswered(error: unknown, timeout: AbortSignal | undefined): TablepayError {
    return timeout?.aborted
      ? new TablepayTimeoutError(this.url, this.timeoutMs)
      : new TablepayConnectionError(this.url, error)
  }

  /** A new empty account with copies of this account's locations, and its key (`POST /sim/accounts`, a simulator control). */
  async createScratchAccount(): Promise<ScratchAccount> {
    return (await this.request<ScratchAccount>('POST', '/sim/accounts')).data
  }

  /** Deletes a scratch account this account made, with everything in it. */
  async deleteScratchAccount(id: string): Promise<Deleted> {
    return (await this.request<Deleted>('DELETE', `/sim/accounts/${encodeURIComponent(id)}`)).data
  }

  // The receiver side: known secrets, updates, rotation, resend, recovery and delivery chaos (docs/api.md, "Webhooks").

  /** Registers an endpoint with a secret of your choosing (`POST /sim/webhook-endpoints`, a simulator control). */
  async createWebhookEndpointWithSecret(input: KnownSecretEndpointInput): Promise<WebhookEndpoint & {secret: string}> {
    const path = '/sim/webhook-endpoints'
    return (await this.request<WebhookEndpoint & {secret: string}>('POST', path, {body: input})).data
  }

  /** The secret every `tablepay listen` of the account signs with, made on first use. */
  async getListenSecret(): Promise<ListenSecret> {
    return (await this.request<ListenSecret>('POST', '/sim/listen-secret')).data
  }

  /** Changes an endpoint's URL, event types or description. */
  async updateWebhookEndpoint(id: string, input: WebhookEndpointUpdate): Promise<WebhookEndpoint> {
    const path = `/webhook-endpoints/${encodeURIComponent(id)}`
    return (await this.request<WebhookEndpoint>('PATCH', path, {body: input})).data
  }

  /** A new secret, in this answer only; the old one keeps signing for `expire_after_s` (default a day). */
  async rotateWebhookSecret(
    id: string,
    input: {expire_after_s?: number} = {},
  ): Promise<WebhookEndpoint & {secret: string}> {
    const path = `/webhook-endpoints/${encodeURIComponent(id)}/rotate-secret`
    return (await this.request<WebhookEndpoint & {secret: string}>('POST', path, {body: input})).data
  }

  /** Delivers again every subscribed event since `since` (ISO) that no delivery to the endpoint succeeded for. */
  async recoverWebhookEndpoint(id: string, since: string): Promise<Recovery> {
    const path = `/webhook-endpoints/${encodeURIComponent(id)}/recover`
    return (await this.request<Recovery>('POST', path, {body: {since}})).data
  }

  /** A new delivery of the event to one endpoint, now: the same body bytes and event id. */
  async resendEvent(id: string, endpointId: string): Promise<Delivery> {
    const path = `/events/${encodeURIComponent(id)}/resend`
    return (await this.request<Delivery>('POST', path, {body: {endpoint_id: endpointId}})).data
  }

  async getWebhookChaos(id: string): Promise<Chaos> {
    return (await this.request<Chaos>('GET', `/sim/webhook-endpoints/${encodeURIComponent(id)}/chaos`)).data
  }

  /** Duplicates and a reorder window for the endpoint's deliveries, seeded so a run can be repeated. */
  async setWebhookChaos(id: string, input: ChaosInput): Promise<Chaos> {
    const path = `/sim/webhook-endpoints/${encodeURIComponent(id)}/chaos`
    return (await this.request<Chaos>('PUT', path, {body: input})).data
  }

  async endWebhookChaos(id: string): Promise<Chaos> {
    return (await this.request<Chaos>('DELETE', `/sim/webhook-endpoints/${encodeURIComponent(id)}/chaos`)).data
  }

  // --- the request log and faults (docs/api.md, "The request log", "Faults and rate limits")

  /** The account's logged requests, newest first (`GET /sim/requests`): what was sent and answered. */
  async listRequests(params: ListParams & RequestFilters = {}): Promise<List<RequestEntry>> {
    return (await this.request<List<RequestEntry>>('GET', '/sim/requests', {query: {...params}})).data
  }

  /** One logged request by its request id (`X-Request-Id`): both bodies, the error and, for a push, what moved. */
  async getRequest(requestId: string): Promise<RequestEntry> {
    return (await this.request<RequestEntry>('GET', `/sim/requests/${encodeURIComponent(requestId)}`)).data
  }

  /** The account's live stream with a `request` message per answered request (for `logs tail`). */
  async openRequestStream({signal}: {signal?: AbortSignal} = {}): Promise<AsyncGenerator<RequestStreamMessage>> {
    return readServerSentEvents(await this.#stream(signal), signal, ['request'])
  }

  /** Makes the next matching requests fail as asked (`POST /sim/faults`). */
  async addFault(input: FaultInput): Promise<Fault> {
    return (await this.request<Fault>('POST', '/sim/faults', {body: input})).data
  }

  /** The account's faults still to strike. */
  async listFaults(params: ListParams = {}): Promise<List<Fault>> {
    return (await this.request<List<Fault>>('GET', '/sim/faults', {query: {...params}})).data
  }

  /** Removes one fault, or all of them without `id`. */
  async clearFaults(id?: string): Promise<{deleted: number}> {
    if (id === undefined) return (await this.request<{deleted: number}>('DELETE', '/sim/faults')).data
    await this.request<Deleted>('DELETE', `/sim/faults/${encodeURIComponent(id)}`)
    return {deleted: 1}
  }

  private async request<T>(
    method: string,
    path: string,
    {query, body, idempotencyKey}: {query?: Query; body?: unknown; idempotencyKey?: string} = {},
  ) {
    const url = `${this.url}/v1${path}${queryString(query)}`
    const headers: Record<string, string> = {authorization: `Bearer ${this.#apiKey}`, accept: 'application/json'}
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
    // the whole exchange, body included: a server may stall after its headers too
    const timeout = this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : undefined
    const sent = body === undefined ? undefined : JSON.stringify(body)
    const response = await this.#answer(url, {method, headers, body: sent, signal: timeout}, timeout)
    const text = await response.text().catch((error: unknown) => Promise.reject(this.#unanswered(error, timeout)))
    let data: T
    try {
      data = JSON.parse(text) as T
    } catch {
      // something else answers at the URL: another service on the port, a proxy's page
      throw new TablepayUnexpectedAnswerError(this.url, response.status, text)
    }
    return {data, headers: response.headers, status: response.status}
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
  const error = body.error ?? {
    code: `http_${response.status}`,
    message: `HTTP ${response.status} ${response.statusText} from ${response.url}: ${text.slice(0, 200)}`,
  }
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN)
  return new TablepayApiError(
    response.status,
    {...error, request_id: error.request_id ?? response.headers.get('x-request-id') ?? undefined},
    Number.isFinite(retryAfter) ? retryAfter : undefined,
  )
}
