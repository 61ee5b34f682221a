import type {ApiKeyRecord} from '../domain/records.js'
import type {Service} from '../service/index.js'
import type {Pruner} from '../service/retention.js'
import type {StreamHub} from './internal/event-stream.js'
import type {Passage} from './internal/traffic.js'
import type {SchedulerClock} from '../webhooks/clock.js'
import type {Dispatcher} from '../webhooks/dispatcher.js'

/** What every route needs: the service, the server's own URL for links such as `guest_url`, the clocks. */
export interface AppContext {
  /** The one owner of records: routes read and change them only through it. */
  service: Service
  baseUrl: string
  /** The wall clock, as an ISO timestamp, for `created_at` and `updated_at`. */
  now: () => string
  clock: SchedulerClock
  dispatcher: Dispatcher
  /** Retention in the background, when the server runs it. */
  pruner?: Pruner
  /** The live streams (`/v1/sim/stream`, `/t/{token}/stream`): each change rendered once per topic, caps per check and address. */
  streams: StreamHub
}

declare module 'h3' {
  /** What the app keeps on a request (`event.context`), and which step of app.ts's `onRequest` sets it. */
  interface H3EventContext {
    /** The request id, caller's or made (internal/request-id.ts): the first step of every request. */
    requestId: string
    /** Its timing, account and what the request log and a fault learn of it (internal/traffic.ts). */
    passage?: Passage
    /** A CORS preflight, answered before any route (internal/cors.ts). */
    preflight?: boolean
    /** The account of a key found, even one refused for its scope: the log keeps that request (internal/auth.ts). */
    keyAccountId?: string
    /** The account the request acts for, once auth let it through (internal/auth.ts). */
    accountId?: string
    /** The caller's key (internal/auth.ts). */
    apiKey?: ApiKeyRecord
    /** The account whose rate limit counts the request: a scratch account's maker (internal/auth.ts). */
    limitedAs?: string
    /** The check of a table link: its idempotency keys live apart from the API key's (routes/guest.ts). */
    guestCheckId?: string
    /** The body as sent, for the request log (internal/body.ts). */
    requestText?: string
  }
}
