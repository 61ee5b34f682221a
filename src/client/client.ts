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
  KeyInfo,
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
import type {ParamsOf, RouteId} from '../domain/routes.js'
import type {Fault, FaultInput} from '../domain/faults.js'
import type {RequestEntry, RequestFilters} from '../domain/request-log.js'
import type {Snapshot} from '../domain/snapshots.js'
import type {SnapshotDocument} from '../domain/snapshot-document.js'
import {serverBase} from '../shared/server-url.js'
import type {List, ListParams} from './resources.js'
import {readServerSentEvents, type RequestStreamMessage, type StreamMessage} from './stream.js'
import {type Sent, Transport} from './transport.js'

export type * from './resources.js'

/** Options of the guest-side POSTs: an `Idempotency-Key`, so a retried call acts once. */
export interface GuestOptions {
  idempotencyKey?: string
}

// how a push changed the stored check, as header X-Tablepay-Push-Result says
export type {PushResult}

/** An answer of `request`: its status, headers and body (parsed JSON, else text, null when empty). */
export interface RawAnswer {
  status: number
  headers: Headers
  data: unknown
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
   * `TablepayTimeoutError` (code `server_timeout`). A whole number up to
   * 2^31 − 1 (about 24 days, the longest a timer waits): another is refused
   * (`TablepayConfigError`, code `invalid_timeout`).
   */
  timeoutMs?: number
  /**
   * Headers sent with every request, besides the key: `{'x-tablepay-client': 'cli-tail'}` keeps the requests
   * out of the request log, as the CLI's tails do (docs/api.md, "The request log").
   */
  headers?: Record<string, string>
}

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
  readonly timeoutMs: number
  readonly #options: ClientOptions
  readonly #transport: Transport

  constructor(options: ClientOptions) {
    const {url, apiKey, fetch: send, timeoutMs = 0, headers} = options
    this.url = serverBase(url)
    // looked up per call, so a fetch patched later (msw) is the one used
    const sender = send ?? ((input, init) => fetch(input, init))
    this.timeoutMs = timeoutMs
    this.#options = options
    this.#transport = new Transport(this.url, apiKey, sender, timeoutMs, headers)
  }

  /** The same client (server, fetch, timeout, headers) with another API key: a scratch account's. */
  withApiKey(apiKey: string): TablepayClient {
    return new TablepayClient({...this.#options, apiKey})
  }

  /** The same client with these headers too: `{'x-tablepay-client': 'cli-tail'}` keeps its reads out of the log. */
  withHeaders(headers: Record<string, string>): TablepayClient {
    return new TablepayClient({...this.#options, headers: {...this.#options.headers, ...headers}})
  }

  /** Answers once the server is up (`GET /health`, no key needed). */
  async getHealth(): Promise<{status: 'ok'}> {
    return this.#call('getHealth', {})
  }

  /** The OpenAPI 3.1 document of the API, as the server serves it. */
  async getOpenApi(): Promise<Record<string, unknown>> {
    return this.#call('getOpenApi', {})
  }

  /** The client's API key: its account and scopes (`GET /sim/key`). */
  async getKey(): Promise<KeyInfo> {
    return this.#call('getKey', {})
  }

  /** The account's locations, newest first. */
  async listLocations(params: ListParams = {}): Promise<List<Location>> {
    return this.#call('listLocations', {}, {query: {...params}})
  }

  /** Sends the complete current state of the check whose POS id is `externalId`. */
  async pushCheck(externalId: string, body: CheckPush): Promise<PushAnswer> {
    const {data, headers, status} = await this.#transport.send<'pushCheck', Check>(
      'pushCheck',
      {external_check_id: externalId},
      {body},
    )
    return {check: data, result: headers.get('x-tablepay-push-result') as PushResult, status}
  }

  async getCheck(id: string): Promise<Check> {
    return this.#call('getCheck', {id})
  }

  async getCheckByExternalId(externalId: string): Promise<Check> {
    return this.#call('getCheckByExternalId', {external_check_id: externalId})
  }

  async listChecks(params: ListParams & {status?: Check['status']; location_id?: string} = {}): Promise<List<Check>> {
    return this.#call('listChecks', {}, {query: {...params}})
  }

  async listEvents(params: ListParams & {type?: Event['type']} = {}): Promise<List<Event>> {
    return this.#call('listEvents', {}, {query: {...params}})
  }

  async getEvent(id: string): Promise<Event> {
    return this.#call('getEvent', {id})
  }

  /** A simulated guest claims units of a check's items (all or nothing). */
  async claim(checkId: string, input: ClaimInput, options: GuestOptions = {}): Promise<Claim> {
    return this.#call('simulateClaim', {id: checkId}, {body: input, ...options})
  }

  /** A simulated guest pays `amount_cents` (at most what is due) plus an optional tip. */
  async pay(checkId: string, input: PaymentInput, options: GuestOptions = {}): Promise<Payment> {
    return this.#call('simulatePayment', {id: checkId}, {body: input, ...options})
  }

  /** Refunds `amount_cents` of a payment, or everything left without it. */
  async refund(paymentId: string, input: RefundInput = {}, options: GuestOptions = {}): Promise<Payment> {
    return this.#call('simulateRefund', {id: paymentId}, {body: input, ...options})
  }

  /** A simulated guest rates the visit (1-5) with an optional comment. */
  async feedback(checkId: string, input: FeedbackInput, options: GuestOptions = {}): Promise<Feedback> {
    return this.#call('simulateFeedback', {id: checkId}, {body: input, ...options})
  }

  async getClaim(id: string): Promise<Claim> {
    return this.#call('getClaim', {id})
  }

  async getPayment(id: string): Promise<Payment> {
    return this.#call('getPayment', {id})
  }

  async getFeedback(id: string): Promise<Feedback> {
    return this.#call('getFeedback', {id})
  }

  async listClaims(checkId: string, params: ListParams = {}): Promise<List<Claim>> {
    return this.#call('listCheckClaims', {id: checkId}, {query: {...params}})
  }

  async listPayments(checkId: string, params: ListParams = {}): Promise<List<Payment>> {
    return this.#call('listCheckPayments', {id: checkId}, {query: {...params}})
  }

  async listFeedback(checkId: string, params: ListParams = {}): Promise<List<Feedback>> {
    return this.#call('listCheckFeedback', {id: checkId}, {query: {...params}})
  }

  /** Registers an endpoint; the answer is the only one that carries its `secret`. */
  async createWebhookEndpoint(input: WebhookEndpointInput): Promise<WebhookEndpoint & {secret: string}> {
    return this.#call('createWebhookEndpoint', {}, {body: input})
  }

  async listWebhookEndpoints(params: ListParams = {}): Promise<List<WebhookEndpoint>> {
    return this.#call('listWebhookEndpoints', {}, {query: {...params}})
  }

  async getWebhookEndpoint(id: string): Promise<WebhookEndpoint> {
    return this.#call('getWebhookEndpoint', {id})
  }

  async deleteWebhookEndpoint(id: string): Promise<Deleted> {
    return this.#call('deleteWebhookEndpoint', {id})
  }

  /** Sends a signed `ping` to the endpoint now and reports how the receiver answered. */
  async testWebhookEndpoint(id: string): Promise<WebhookTestResult> {
    return this.#call('testWebhookEndpoint', {id})
  }

  async listDeliveries(
    params: ListParams & {endpoint_id?: string; event_id?: string; status?: Delivery['status']} = {},
  ): Promise<List<Delivery>> {
    return this.#call('listDeliveries', {}, {query: {...params}})
  }

  async getDelivery(id: string): Promise<Delivery> {
    return this.#call('getDelivery', {id})
  }

  /** Queues one more attempt now, whatever the delivery's state. */
  async retryDelivery(id: string): Promise<Delivery> {
    return this.#call('retryDelivery', {id})
  }

  async getClock(): Promise<Clock> {
    return this.#call('getClock', {})
  }

  /** Moves the scheduler clock forward and resolves once every attempt that fell due has run. */
  async advanceClock(seconds: number): Promise<Clock & {attempts: number}> {
    return this.#call('advanceClock', {}, {body: {seconds}})
  }

  /** Puts the scheduler clock back on the wall clock; pending deliveries keep their due times. */
  async resetClock(): Promise<Clock> {
    return this.#call('resetClock', {})
  }

  /** Deletes the account's checks and what hangs off them (`POST /sim/reset`); keys, locations and endpoints stay. */
  async reset(): Promise<{object: 'reset'; deleted: Record<string, number>}> {
    return this.#call('resetAccount', {})
  }

  /**
   * Opens the account's live feed of new events, delivery changes and deleted
   * endpoints (`GET /sim/stream`), and a `reset` when a snapshot's restore
   * rewrote the account. Resolves once the server has accepted it, so what
   * happens from then on is seen; the messages end when `signal` aborts or
   * the server stops. `return()` (a `break` out of `for await`) closes the
   * connection at once, also while a `next()` waits. An abort while it opens
   * rejects with the signal's reason, as `fetch` does.
   *
   * @example
   * const messages = await client.openStream({signal})
   * for await (const message of messages) if (message.type === 'delivery') console.log(message.data.status)
   */
  async openStream({signal}: {signal?: AbortSignal} = {}): Promise<AsyncGenerator<StreamMessage>> {
    return readServerSentEvents(await this.#transport.stream(signal), signal)
  }

  /** The account's live stream with a `request` message per answered request (for `logs tail`). */
  async openRequestStream({signal}: {signal?: AbortSignal} = {}): Promise<AsyncGenerator<RequestStreamMessage>> {
    return readServerSentEvents(await this.#transport.stream(signal), signal, ['request'])
  }

  /** A new empty account with copies of this account's locations, and its key (`POST /sim/accounts`, a simulator control). */
  async createScratchAccount(): Promise<ScratchAccount> {
    return this.#call('createScratchAccount', {})
  }

  /** Deletes a scratch account this account made, with everything in it. */
  async deleteScratchAccount(id: string): Promise<Deleted> {
    return this.#call('deleteScratchAccount', {id})
  }

  // The receiver side: known secrets, updates, rotation, resend, recovery and delivery chaos (docs/api.md, "Webhooks").

  /** Registers an endpoint with a secret of your choosing (`POST /sim/webhook-endpoints`, a simulator control). */
  async createWebhookEndpointWithSecret(input: KnownSecretEndpointInput): Promise<WebhookEndpoint & {secret: string}> {
    return this.#call('createWebhookEndpointWithSecret', {}, {body: input})
  }

  /** The secret every `tablepay listen` of the account signs with, made on first use. */
  async getListenSecret(): Promise<ListenSecret> {
    return this.#call('getListenSecret', {})
  }

  /** Changes an endpoint's URL, event types or description. */
  async updateWebhookEndpoint(id: string, input: WebhookEndpointUpdate): Promise<WebhookEndpoint> {
    return this.#call('updateWebhookEndpoint', {id}, {body: input})
  }

  /** A new secret, in this answer only; the old one keeps signing for `expire_after_s` (default a day). */
  async rotateWebhookSecret(
    id: string,
    input: {expire_after_s?: number} = {},
  ): Promise<WebhookEndpoint & {secret: string}> {
    return this.#call('rotateWebhookSecret', {id}, {body: input})
  }

  /** Delivers again every subscribed event since `since` (ISO) that no delivery to the endpoint succeeded for. */
  async recoverWebhookEndpoint(id: string, since: string): Promise<Recovery> {
    return this.#call('recoverWebhookEndpoint', {id}, {body: {since}})
  }

  /** A new delivery of the event to one endpoint, now: the same body bytes and event id. */
  async resendEvent(id: string, endpointId: string): Promise<Delivery> {
    return this.#call('resendEvent', {id}, {body: {endpoint_id: endpointId}})
  }

  async getWebhookChaos(id: string): Promise<Chaos> {
    return this.#call('getWebhookChaos', {id})
  }

  /** Duplicates and a reorder window for the endpoint's deliveries, seeded so a run can be repeated. */
  async setWebhookChaos(id: string, input: ChaosInput): Promise<Chaos> {
    return this.#call('setWebhookChaos', {id}, {body: input})
  }

  async endWebhookChaos(id: string): Promise<Chaos> {
    return this.#call('endWebhookChaos', {id})
  }

  // --- the request log and faults (docs/api.md, "The request log", "Faults and rate limits")

  /** The account's logged requests, newest first (`GET /sim/requests`): what was sent and answered. */
  async listRequests(params: ListParams & RequestFilters = {}): Promise<List<RequestEntry>> {
    return this.#call('listRequests', {}, {query: {...params}})
  }

  /** One logged request by its request id (`X-Request-Id`): both bodies, the error and, for a push, what moved. */
  async getRequest(requestId: string): Promise<RequestEntry> {
    return this.#call('getRequest', {request_id: requestId})
  }

  /** Makes the next matching requests fail as asked (`POST /sim/faults`). */
  async addFault(input: FaultInput): Promise<Fault> {
    return this.#call('createFault', {}, {body: input})
  }

  /** The account's faults still to strike. */
  async listFaults(params: ListParams = {}): Promise<List<Fault>> {
    return this.#call('listFaults', {}, {query: {...params}})
  }

  /** Removes one fault, or all of them without `id`. */
  async clearFaults(id?: string): Promise<{object: 'fault_clear'; deleted: number}> {
    if (id === undefined) return this.#call('clearFaults', {})
    await this.deleteFault(id)
    return {object: 'fault_clear', deleted: 1}
  }

  /** Removes one fault (`DELETE /sim/faults/{id}`). */
  async deleteFault(id: string): Promise<Deleted> {
    return this.#call('deleteFault', {id})
  }

  /**
   * Any API call, by method and path under /v1 (query included), answered
   * whatever its status: for scripts that judge the answer themselves, as
   * `scenario run`'s `request` and `expect` steps do. `body` is sent as
   * JSON; the answer's `data` is its parsed JSON (its text when it is not
   * JSON). Throws only when no answer comes (`TablepayConnectionError`,
   * `TablepayTimeoutError`), when it is an event stream, which never
   * ends (`TablepayEventStreamError`: read one with `stream()`), and a
   * `TypeError` for a path that does not start with `/` or has a `.` or
   * `..` segment, which `fetch` would send to another route.
   *
   * @example
   * const {status, data} = await client.request('GET', '/checks/external/t12')
   */
  async request(
    method: string,
    path: string,
    options: {body?: unknown; headers?: Record<string, string>; idempotencyKey?: string} = {},
  ): Promise<RawAnswer> {
    return this.#transport.request(method, path, options)
  }

  // --- snapshots: saved states of the account (docs/snapshots.md)

  /** Saves the account's records and the clock's offset as `name`, replacing a snapshot of that name. */
  async saveSnapshot(name: string): Promise<Snapshot> {
    return this.#call('saveSnapshot', {}, {body: {name}})
  }

  /** The account's snapshots, newest first. */
  async listSnapshots(params: ListParams = {}): Promise<List<Snapshot>> {
    return this.#call('listSnapshots', {}, {query: {...params}})
  }

  async getSnapshot(name: string): Promise<Snapshot> {
    return this.#call('getSnapshot', {name})
  }

  async deleteSnapshot(name: string): Promise<Deleted> {
    return this.#call('deleteSnapshot', {name})
  }

  /** Makes the account exactly what snapshot `name` saved; the request log and faults stay. */
  async restoreSnapshot(name: string): Promise<Snapshot> {
    return this.#call('restoreSnapshot', {name})
  }

  /** The snapshot as one self-contained document, which `importSnapshot` takes back. */
  async exportSnapshot(name: string): Promise<SnapshotDocument> {
    return this.#call('exportSnapshot', {name})
  }

  /** Stores an exported snapshot in this account, under the document's `name`. */
  async importSnapshot(document: SnapshotDocument): Promise<Snapshot> {
    return this.#call('importSnapshot', {}, {body: document})
  }

  /** The answer's body of operation `id`, with the values `params` of its path's parameters. */
  async #call<Id extends RouteId, T>(id: Id, params: ParamsOf<Id>, sent?: Sent): Promise<T> {
    return (await this.#transport.send<Id, T>(id, params, sent)).data
  }
}
