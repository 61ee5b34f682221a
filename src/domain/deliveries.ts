import {appended} from './arrays.js'
import {stirDelivery} from './chaos.js'
import {ApiError} from './errors.js'
import {newId} from './ids.js'
import type {DeliveryRecord, EventRecord, WebhookEndpointRecord} from './records.js'
import type {Delivery, DeliveryAttempt} from './schemas.js'
import {isoTime} from './timestamps.js'

/** Seconds to wait after each failed attempt; when the attempt after the last wait fails, the delivery is dead (docs/api.md, "Webhooks"). */
export const RETRY_SCHEDULE = [60, 300, 1800, 7200, 28800, 86400]

/** Dead deliveries in a row that disable an endpoint (docs/api.md, "Webhooks"). */
export const DISABLE_AFTER = 10

/** The attempts of a new delivery. Records never change in place, so all of them share one (frozen) empty list. */
const NO_ATTEMPTS = Object.freeze([]) as unknown as DeliveryAttempt[]

/**
 * Whether `endpoint` gets a delivery of `event`: enabled, and subscribed to its type (SPEC: only the types an
 * endpoint lists are meant for it). A pending delivery it no longer wants is canceled when it comes due.
 */
export const wants = (
  endpoint: WebhookEndpointRecord | undefined,
  event: Pick<EventRecord, 'type'>,
): endpoint is WebhookEndpointRecord => endpoint?.status === 'enabled' && endpoint.event_types.includes(event.type)

/** What a fan-out made: the deliveries, and each endpoint under chaos that drew for its own, one draw further. */
export interface FanOut {
  deliveries: DeliveryRecord[]
  /** Endpoints to write back: an endpoint's next delivery draws where this one left off. */
  stirred: readonly WebhookEndpointRecord[]
}

/** Stirred by no fan-out: shared, so a fan-out to calm endpoints makes no array for it. */
const CALM: readonly WebhookEndpointRecord[] = Object.freeze([])

/**
 * One delivery per enabled endpoint subscribed to the event's type, due at once (docs/api.md,
 * "Webhooks"). An endpoint under chaos gets its delivery stirred (a delay, a duplicate to come),
 * and comes back in `stirred` with its chaos one draw further, for the caller to write.
 *
 * @example
 * const {deliveries, stirred} = fanOut(event, endpoints, clock.now())
 */
export function fanOut(event: EventRecord, endpoints: Iterable<WebhookEndpointRecord>, dueAt: number): FanOut {
  const deliveries: DeliveryRecord[] = []
  let stirred: WebhookEndpointRecord[] | undefined
  // one string for all of them: a push to 100 endpoints formats the time once, a push to none never
  let due: string | undefined
  for (const endpoint of endpoints) {
    if (!wants(endpoint, event)) continue
    const delivery = newDelivery(event, endpoint, (due ??= isoTime(dueAt)))
    if (endpoint.chaos === undefined) deliveries.push(delivery)
    else {
      const stir = stirDelivery(delivery, endpoint.chaos, dueAt)
      deliveries.push(stir.delivery)
      stirred ??= []
      stirred.push({...endpoint, chaos: stir.chaos})
    }
  }
  return {deliveries, stirred: stirred ?? CALM}
}

function newDelivery(event: EventRecord, endpoint: WebhookEndpointRecord, due: string): DeliveryRecord {
  const delivery: DeliveryRecord = {
    id: newId('dlv'),
    object: 'delivery',
    endpoint_id: endpoint.id,
    event_id: event.id,
    event_type: event.type,
    status: 'pending',
    attempts: NO_ATTEMPTS,
    next_attempt_at: due,
    created_at: event.created_at,
    updated_at: event.created_at,
    account_id: event.account_id,
  }
  if (endpoint.redeliveries === undefined) return delivery
  // `account_id` stays last, where a start finds it without parsing the record (store/unread.ts)
  const {account_id, ...rest} = delivery
  return {...rest, endpoint_redeliveries: endpoint.redeliveries, account_id}
}

/** What to do about a disabled endpoint: it stays so (SPEC 6.6), so the receiver is registered again. */
const REGISTER_AGAIN =
  ' A disabled endpoint stays so: register the receiver again (POST /v1/webhook-endpoints), then resend or recover to the new endpoint.'

/**
 * Refuses a delivery to an endpoint that is gone or disabled (`409 endpoint_disabled`): nothing is
 * sent to it. `instead` says what to do; for a disabled one, by default, register it again.
 */
export function requireEnabled(
  endpointId: string,
  endpoint: WebhookEndpointRecord | undefined,
  instead = endpoint ? REGISTER_AGAIN : '',
): asserts endpoint is WebhookEndpointRecord {
  if (endpoint?.status === 'enabled') return
  const why = endpoint ? 'is disabled' : 'was deleted'
  throw new ApiError('endpoint_disabled', `Endpoint ${endpointId} ${why}: nothing is delivered to it.${instead}`)
}

/** Refuses to deliver an event of `type` to `endpoint` when it does not take that type. */
function requireType(endpoint: WebhookEndpointRecord, type: string): void {
  if (!(endpoint.event_types as readonly string[]).includes(type))
    throw new ApiError(
      'event_type_not_subscribed',
      `Endpoint ${endpoint.id} does not take ${type} events; add the type with PATCH /v1/webhook-endpoints/${endpoint.id}.`,
    )
}

/**
 * New deliveries of `events` to `endpoint`, due at `dueAt`, in their order (resend and recover): the
 * endpoint must be enabled and take each event's type. Created now, so lists show them as new. Under
 * chaos each draws as any new delivery does. The endpoint comes back with its `redeliveries` counted
 * and its chaos drawn, for the caller to write.
 *
 * @example
 * const {deliveries, endpoint: counted} = redeliver([event], endpoint, clock.now(), now)
 */
export function redeliver(
  events: readonly EventRecord[],
  endpoint: WebhookEndpointRecord,
  dueAt: number,
  now: string,
): {deliveries: DeliveryRecord[]; endpoint: WebhookEndpointRecord} {
  requireEnabled(endpoint.id, endpoint)
  const due = isoTime(dueAt)
  let chaos = endpoint.chaos
  const deliveries = events.map((event) => {
    requireType(endpoint, event.type)
    const delivery = {...newDelivery(event, endpoint, due), created_at: now, updated_at: now}
    if (chaos === undefined) return delivery
    const stir = stirDelivery(delivery, chaos, dueAt)
    chaos = stir.chaos
    return stir.delivery
  })
  const redeliveries = (endpoint.redeliveries ?? 0) + deliveries.length
  return {deliveries, endpoint: {...endpoint, ...(chaos === undefined ? {} : {chaos}), redeliveries}}
}

/**
 * Recovery (docs/api.md, "Webhooks"): the events of `events` (oldest first) created at or after `since`,
 * and not before the endpoint, that have a delivery to it (`deliveries`: the endpoint's) and no succeeded
 * one, of a type it still takes; each once, oldest first. An event the endpoint never had a delivery of
 * is not its to recover.
 *
 * @example
 * const missed = eventsToRecover(events, deliveries, endpoint, '2026-11-22T10:00:00.000Z')
 */
export function eventsToRecover(
  events: Iterable<EventRecord>,
  deliveries: Iterable<DeliveryRecord>,
  endpoint: WebhookEndpointRecord,
  since: string,
): EventRecord[] {
  // event id → whether a delivery of it to the endpoint succeeded
  const had = new Map<string, boolean>()
  for (const d of deliveries)
    if (d.endpoint_id === endpoint.id) had.set(d.event_id, had.get(d.event_id) === true || d.status === 'succeeded')
  const from = Math.max(Date.parse(since), Date.parse(endpoint.created_at))
  const missed: EventRecord[] = []
  for (const event of events)
    if (
      had.get(event.id) === false &&
      Date.parse(event.created_at) >= from &&
      endpoint.event_types.includes(event.type)
    )
      missed.push(event)
  return missed
}

/**
 * Whether other deliveries of the delivery's event to `endpoint` may be pending: a resend or recovery to
 * the endpoint was made since this delivery was, or this is one. Only then does its success look for
 * them to supersede, so the success of a delivery the endpoint got once reads nothing more.
 */
export const mayHaveRedeliveries = (delivery: DeliveryRecord, endpoint: WebhookEndpointRecord): boolean =>
  (delivery.endpoint_redeliveries ?? 0) !== (endpoint.redeliveries ?? 0)

/**
 * A pending delivery that makes no more attempts: `by`, another delivery of its event to its endpoint,
 * succeeded (docs/api.md, "Webhooks", A success ends the retries).
 *
 * @example
 * const ended = supersede(original, resent.id, now)
 */
export function supersede({account_id, ...delivery}: DeliveryRecord, by: string, now: string): DeliveryRecord {
  // `account_id` stays last, where a start finds it without parsing the record (store/unread.ts)
  return {...delivery, status: 'superseded', next_attempt_at: null, updated_at: now, superseded_by: by, account_id}
}

/** What one HTTP attempt came to. Success is a 2xx within the timeout, nothing else. */
export interface AttemptResult {
  status_code: number | null
  duration_ms: number
  error: string | null
  response_body: string | null
}

/**
 * The next attempt of `delivery`, its fields written out in the order the
 * sender's result has them: an object spread into a literal keeps what
 * overflows the literal's own fields in an array of their own, 40 bytes
 * more for each attempt retention keeps (docs/benchmarks.md, "Memory with
 * a webhook endpoint").
 */
const attemptOf = (attempt: number, at: string, scheduledAt: string, result: AttemptResult): DeliveryAttempt => ({
  attempt,
  at,
  scheduled_at: scheduledAt,
  status_code: result.status_code,
  error: result.error,
  response_body: result.response_body,
  duration_ms: result.duration_ms,
})

export const succeeded = (result: AttemptResult) =>
  result.error === null && result.status_code !== null && result.status_code >= 200 && result.status_code < 300

export interface AttemptOptions {
  /** Wall clock, ISO: when the attempt was made. */
  now: string
  /** Scheduler clock, ms: when the attempt was due. */
  dueAt: number
  /** Scheduler clock, ms: when the attempt was sent (`dueAt` when not given): see `retryBase`. */
  madeAt?: number
  schedule: readonly number[]
  disableAfter: number
  /** The delivery as the attempt claimed it, when known: a retry since then still stands. */
  claimed?: DeliveryRecord
}

/** How long after its due time an attempt may be sent and still count as on time, on the scheduler clock. */
const ON_TIME_MS = 10_000

/**
 * What a failed attempt's retry wait counts from (scheduler ms): when it was due, or, when it was sent more than
 * ON_TIME_MS after that (the server was stopped, a backlog), when it was sent, in whole seconds. Retries then
 * never come due back to back, and an attempt sent on time keeps the schedule's exact times, however long its
 * receiver takes and whatever a busy machine adds to an advance (docs/api.md, "Webhooks").
 */
export function retryBase(dueAt: number, madeAt: number): number {
  const late = madeAt - dueAt
  return late > ON_TIME_MS ? dueAt + Math.floor(late / 1000) * 1000 : dueAt
}

/**
 * Records an attempt: the delivery succeeds, waits for its next retry, or is
 * dead after the last one. A delivery that goes dead counts toward disabling
 * its endpoint, once: a manual retry of a dead one that fails again does not
 * count again. A success resets the count.
 */
export function recordAttempt(
  delivery: DeliveryRecord,
  endpoint: WebhookEndpointRecord,
  result: AttemptResult,
  options: AttemptOptions,
): {delivery: DeliveryRecord; endpoint: WebhookEndpointRecord} {
  const {now, dueAt, madeAt = dueAt, schedule, disableAfter, claimed} = options
  const scheduledAt = isoTime(dueAt)
  // numbered as it was sent: one past the attempts of the delivery it claimed
  const made = attemptOf((claimed ?? delivery).attempts.length + 1, now, scheduledAt, result)
  // taken over and recorded by another instance meanwhile (docs/postgres.md): the same attempt made again, a copy
  // as a chaos duplicate is, which the retry schedule does not count
  const again = recordedSince(claimed, delivery, scheduledAt)
  const attempts = appended<DeliveryAttempt>(delivery.attempts, again ? {...made, duplicate: true as const} : made)
  const ok = succeeded(result)
  // retried while the attempt was out (the retry's attempt is still to come), or a copy whose first record
  // decided what follows: the attempt happened, and a failure moves nothing else
  if (retriedSince(claimed, delivery) || (again && !ok))
    return {delivery: {...delivery, attempts, updated_at: now}, endpoint}
  // canceled while the attempt was out (its endpoint deleted): the receiver's answer still decides a success,
  // and nothing follows a failure (docs/api.md, "Webhooks", Endpoints)
  if (delivery.status === 'canceled')
    return {delivery: {...delivery, attempts, ...(ok ? {status: 'succeeded' as const} : {}), updated_at: now}, endpoint}
  // superseded while the attempt was out (another delivery of its event succeeded), or succeeded (another
  // instance's attempt of it, after a takeover): recorded, and nothing follows
  if (delivery.status === 'superseded' || delivery.status === 'succeeded')
    return {delivery: {...delivery, attempts, updated_at: now}, endpoint}
  // a chaos duplicate is an extra copy, not a try: it moves nothing along the retry schedule
  const wait = schedule[delivery.attempts.filter((a) => !a.duplicate).length]
  const status = ok ? 'succeeded' : wait === undefined ? 'dead' : 'pending'
  const next = {
    ...delivery,
    status,
    attempts,
    next_attempt_at: status === 'pending' ? isoTime(retryBase(dueAt, madeAt) + wait! * 1000) : null,
    updated_at: now,
  } as const
  if (status === 'pending' || (status === 'dead' && delivery.dead_counted)) return {delivery: next, endpoint}
  const consecutive_dead = ok ? 0 : endpoint.consecutive_dead + 1
  const disable = consecutive_dead >= disableAfter && endpoint.status === 'enabled'
  const recorded = status === 'dead' ? deadCounted(next) : next
  if (consecutive_dead === endpoint.consecutive_dead && !disable) return {delivery: recorded, endpoint}
  return {
    delivery: recorded,
    endpoint: {...endpoint, consecutive_dead, ...(disable ? {status: 'disabled' as const, updated_at: now} : {})},
  }
}

/** A delivery gone dead, marked as counted toward disabling its endpoint (`recordAttempt`). */
function deadCounted({account_id, ...delivery}: DeliveryRecord): DeliveryRecord {
  // `account_id` stays last, where a start finds it without parsing the record (store/unread.ts)
  return {...delivery, dead_counted: true, account_id}
}

/** Whether an attempt due at `scheduledAt`, not a copy, was recorded on `latest` since it was claimed as `claimed`. */
const recordedSince = (claimed: DeliveryRecord | undefined, latest: DeliveryRecord, scheduledAt: string): boolean =>
  claimed !== undefined &&
  latest.attempts.slice(claimed.attempts.length).some((a) => !a.duplicate && a.scheduled_at === scheduledAt)

/**
 * Whether `latest` was requeued (a manual retry) since the attempt claimed it
 * as `claimed`: pending again, and written since with another due time or at
 * another moment. Nothing else makes it pending with its attempts unchanged.
 */
function retriedSince(claimed: DeliveryRecord | undefined, latest: DeliveryRecord): boolean {
  if (!claimed || latest.status !== 'pending' || latest.attempts.length !== claimed.attempts.length) return false
  return latest.next_attempt_at !== claimed.next_attempt_at || latest.updated_at !== claimed.updated_at
}

/**
 * How many attempts the delivery has had made for the times from `dueAt` (scheduler ms) on, duplicates
 * left out, and only those sent from `sentFrom` (wall ms) on when given: what another instance made of it
 * since the attempt this one knew to be due, in one record when that instance made several before this one
 * heard of the first.
 *
 * @example
 * const made = attemptsMadeSince(latest, Date.parse(queued.next_attempt_at))
 */
export function attemptsMadeSince(delivery: DeliveryRecord, dueAt: number, sentFrom?: number): number {
  // times as isoTime writes them: fixed width, so their order is the text's
  const due = isoTime(dueAt)
  let made = 0
  for (const attempt of delivery.attempts)
    if (!attempt.duplicate && attempt.scheduled_at >= due && (sentFrom === undefined || sentAt(attempt) >= sentFrom))
      made++
  return made
}

/** When an attempt was sent: it ended (`at`) `duration_ms` after. */
const sentAt = (attempt: DeliveryAttempt): number => Date.parse(attempt.at) - attempt.duration_ms

/** A delivery whose endpoint is gone or disabled: nothing more is sent (docs/api.md, "Webhooks"). */
export const cancelDelivery = (delivery: DeliveryRecord, now: string): DeliveryRecord => ({
  ...delivery,
  status: 'canceled',
  next_attempt_at: null,
  updated_at: now,
})

/**
 * A manual retry: due now again, whatever its state, keeping its attempts. Its endpoint must
 * still be there and enabled (`409 endpoint_disabled`): nothing is sent to any other, so a
 * retry there would answer `pending` for an attempt that is never made.
 *
 * @example
 * const requeued = requeueDelivery(dead, endpoint, clock.now(), now)
 */
export function requeueDelivery(
  {superseded_by: _, ...delivery}: DeliveryRecord,
  endpoint: WebhookEndpointRecord | undefined,
  dueAt: number,
  now: string,
): DeliveryRecord {
  // one made after the delivery is another endpoint, of an id chosen again after a delete: the delivery's is gone
  const own = endpoint && Date.parse(endpoint.created_at) > Date.parse(delivery.created_at) ? undefined : endpoint
  requireEnabled(
    delivery.endpoint_id,
    own,
    ` Resend the event to an enabled endpoint with POST /v1/events/${delivery.event_id}/resend.`,
  )
  requireType(own, delivery.event_type)
  return {...delivery, status: 'pending', next_attempt_at: isoTime(dueAt), updated_at: now}
}

/**
 * The chaos duplicate of a delivery whose attempt succeeded: one more attempt, marked
 * `duplicate: true`, that changes nothing else (docs/api.md, "Delivery chaos"). It is numbered as it was
 * `sent`: another instance may have recorded an attempt meanwhile (docs/postgres.md, "Delivery across instances").
 */
export function recordDuplicate(
  {chaos_duplicate: _, ...delivery}: DeliveryRecord,
  result: AttemptResult,
  now: string,
  sent: number,
): DeliveryRecord {
  const scheduledAt = delivery.attempts.at(-1)?.scheduled_at ?? now
  const attempt: DeliveryAttempt = {
    ...attemptOf(sent, now, scheduledAt, result),
    duplicate: true,
  }
  return {...delivery, attempts: appended(delivery.attempts, attempt), updated_at: now}
}

/** The public delivery resource: the fields the API defines, whatever else a record imported holds. */
export function renderDelivery(record: DeliveryRecord): Delivery {
  const delivery: Delivery = {
    id: record.id,
    object: record.object,
    endpoint_id: record.endpoint_id,
    event_id: record.event_id,
    event_type: record.event_type,
    status: record.status,
    attempts: record.attempts.map(renderAttempt),
    next_attempt_at: record.next_attempt_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
  }
  if (record.superseded_by !== undefined) delivery.superseded_by = record.superseded_by
  return delivery
}

const renderAttempt = (attempt: DeliveryAttempt): DeliveryAttempt => ({
  attempt: attempt.attempt,
  at: attempt.at,
  scheduled_at: attempt.scheduled_at,
  status_code: attempt.status_code,
  error: attempt.error,
  response_body: attempt.response_body,
  duration_ms: attempt.duration_ms,
  ...(attempt.duplicate ? {duplicate: true as const} : {}),
})
