import type {DeliveryRecord, EventRecord, IdempotencyRecord} from './records.js'
import {isoTime, LAST_TIME} from './timestamps.js'

const DAY_MS = 86_400_000

/** How long records are kept (docs/api.md, "Retention"). */
export interface RetentionPolicy {
  /** Events older than this go, with their finished deliveries (ms, wall clock). */
  eventMaxAgeMs: number
  /** At most this many events per account: the oldest go first. */
  maxEvents: number
  /** An `Idempotency-Key` is forgotten this long after its first use (ms, scheduler clock). */
  idempotencyKeyTtlMs: number
  /**
   * Records one unit of work deletes at most, so pruning never holds the requests queued behind it for long;
   * a pass reads at most twice as many events past those a pending delivery keeps.
   */
  pruneBatch: number
}

export const DEFAULT_RETENTION: RetentionPolicy = {
  eventMaxAgeMs: 30 * DAY_MS,
  maxEvents: 100_000,
  idempotencyKeyTtlMs: DAY_MS,
  pruneBatch: 500,
}

/**
 * Whether an event is older than what is kept. The oldest events of an
 * account go when they are past it, or while the account holds more than
 * `maxEvents`, whatever their age.
 */
export function isPastAge(event: EventRecord, nowMs: number, policy: RetentionPolicy): boolean {
  return Date.parse(event.created_at) < nowMs - policy.eventMaxAgeMs
}

/**
 * An event past retention goes with its deliveries, unless one is still pending, or they are still
 * to be written (`fanningOut`): it stays until they end.
 */
export const mayDelete = (deliveries: readonly DeliveryRecord[], fanningOut: boolean): boolean =>
  !fanningOut && deliveries.every((delivery) => delivery.status !== 'pending')

/** When a key first used at `nowMs` (scheduler clock) is forgotten. */
export const keyExpiry = (nowMs: number, policy: RetentionPolicy): string => isoTime(nowMs + policy.idempotencyKeyTtlMs)

/**
 * Whether a stored `Idempotency-Key` is forgotten: a day after its first use on the scheduler clock
 * (`clockMs`, so `clock advance 24h` forgets it as a day would) or on the wall clock (`wallMs`), whichever
 * comes first. The wall clock bounds a key stored after an advance: once the clock is reset, the
 * scheduler clock would take the advance's length more to reach its expiry (docs/api.md, "Idempotency-Key").
 */
export function isExpiredKey(
  record: IdempotencyRecord,
  clockMs: number,
  wallMs: number,
  policy: RetentionPolicy,
): boolean {
  const created = Date.parse(record.created_at)
  const expires = record.expires_at ? Date.parse(record.expires_at) : created + policy.idempotencyKeyTtlMs
  // an expiry that reads as the last time was set past it, where the clock stops: it never comes on that clock,
  // or a key stored there would be forgotten as it is stored, and a payment sent twice with it made twice
  const onClock = expires < LAST_TIME && expires <= clockMs
  return onClock || created + policy.idempotencyKeyTtlMs <= wallMs
}
