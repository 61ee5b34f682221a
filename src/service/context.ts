import type {Limits} from '../domain/limits.js'
import type {RetentionPolicy} from '../domain/retention.js'
import type {SchedulerClock} from '../webhooks/clock.js'
import type {Change, Storage} from './storage.js'

/** What every part of the service needs: where records live, the clocks, and the server's own URL for links. */
export interface ServiceContext {
  storage: Storage
  /** The URL the server is reached at, for links in resources (`guest_url`). */
  baseUrl: string
  /** The wall clock, as an ISO timestamp, for `created_at` and `updated_at`. */
  now: () => string
  /** The scheduler clock: deliveries fall due on it. */
  clock: SchedulerClock
  /** True: every endpoint URL must be https. False: plain http is accepted for loopback hosts. */
  strictUrls: boolean
  /** How long events and idempotency keys are kept (default DEFAULT_RETENTION). */
  retention?: RetentionPolicy
  /** Requests the log keeps per account (`serve --request-log N`, default 1000); 0 turns it off. */
  requestLogSize?: number
  /** The bounds of what callers make freely (default `LIMITS`): tests and embedders may lower them. */
  limits?: Partial<Limits>
  /** Requests a second per account (`serve --rate-limit N`), and the limiter's clock in ms (tests move their own). */
  rateLimit?: {perSecond: number; now?: () => number}
}

/** Told of every delivery a unit of work wrote, once durable: the dispatcher queues what is pending. */
export type DeliveryQueue = (changes: readonly Change[]) => void
