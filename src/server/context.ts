import type {Service} from '../service/index.js'
import type {Pruner} from '../service/retention.js'
import type {StreamHub} from './internal/event-stream.js'
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
