import type {Store} from '../store/store.js'

/** What every route needs: the store, and the server's own URL for links such as `guest_url`. */
export interface AppContext {
  store: Store
  baseUrl: string
  /** The wall clock, as an ISO timestamp, for `created_at` and `updated_at`. */
  now: () => string
}
