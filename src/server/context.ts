import type {EventRecord} from '../domain/records.js'
import type {Change, Store} from '../store/store.js'
import type {StreamHub} from './internal/event-stream.js'
import type {SchedulerClock} from '../webhooks/clock.js'
import type {Dispatcher} from '../webhooks/dispatcher.js'

/** What every route needs: the store, the server's own URL for links such as `guest_url`, the clocks. */
export interface AppContext {
  store: Store
  baseUrl: string
  /** The wall clock, as an ISO timestamp, for `created_at` and `updated_at`. */
  now: () => string
  clock: SchedulerClock
  dispatcher: Dispatcher
  /** True: every endpoint URL must be https. False: plain http is accepted for loopback hosts. */
  strictUrls: boolean
  /** The live streams (`/v1/sim/stream`, `/t/{token}/stream`): each change rendered once per topic, caps per check and address. */
  streams: StreamHub
  /** The changes that store `events` and their deliveries, to commit with the change that caused them (outbox). */
  outbox: (events: readonly EventRecord[]) => Change[]
}
