import type {SnapshotRecords} from './snapshots.js'
import type {Check, Claim, Delivery, Event, Feedback, Location, Payment, Scope, WebhookEndpoint} from './schemas.js'

/**
 * What the store keeps. A record is the public resource plus the fields the
 * API never shows (owning account, guest token); `render*` turn records into
 * resources.
 */
export interface AccountRecord {
  id: string
  /** Equal to `id`: every record names the account it belongs to. */
  account_id: string
  name: string
  created_at: string
  /** Set on a scratch account (`POST /sim/accounts`): the account that made it, and alone may delete it. */
  scratch_of?: string
  /** The secret every `tablepay listen` of this account signs with, made on first use (docs/api.md, "Webhooks"). */
  listen_secret?: string
}

export interface ApiKeyRecord {
  key: string
  account_id: string
  scopes: Scope[]
  created_at: string
  /**
   * Set on a scratch account's key: the account whose `serve --rate-limit` it counts against, the first
   * account up its `scratch_of` line that is not a scratch account, so making accounts does not lift the limit.
   */
  limited_as?: string
}

export type LocationRecord = Location & {account_id: string}

export type CheckRecord = Omit<Check, 'guest_url' | 'amount_due_cents' | 'payment_status'> & {
  account_id: string
  guest_token: string
}

export type ClaimRecord = Claim & {account_id: string}

export type PaymentRecord = Payment & {account_id: string}

export type FeedbackRecord = Feedback & {account_id: string}

/** A guest POST answered under an `Idempotency-Key`: a replay gets this answer again. */
export interface IdempotencyRecord {
  /** The account and the key: keys are scoped per account. */
  id: string
  account_id: string
  key: string
  /** sha256 of method, path and body: the same key with another request is refused. */
  request_hash: string
  status: number
  body: unknown
  created_at: string
  /** When the key is forgotten, on the scheduler clock; earlier versions stored none (then `created_at` + 24 h). */
  expires_at?: string
}

export type EventRecord = Event & {account_id: string}

export type WebhookEndpointRecord = WebhookEndpoint & {
  account_id: string
  secret: string
  /** Deliveries that went dead in a row; reaching --disable-after disables the endpoint. */
  consecutive_dead: number
  /** The secret before the last rotation: attempts are signed with it too until it expires. */
  previous_secret?: string
  /** Scheduler clock, ISO: when `previous_secret` stops signing. */
  previous_secret_expires_at?: string
  /** Delivery chaos (`PUT /sim/webhook-endpoints/{id}/chaos`): absent when off, which costs deliveries nothing. */
  chaos?: EndpointChaos
  /**
   * Where an endpoint whose id the caller chose is kept: `{account_id}/{id}`, so that id is the account's own
   * and another account may choose it too (`endpointKey`). Absent on an endpoint whose id the server made.
   */
  stored_as?: string
  /**
   * Deliveries that resend and recovery have made to it so far: a success looks for other deliveries of its
   * event to supersede only when this moved since its own delivery was made (`mayHaveRedeliveries`).
   */
  redeliveries?: number
}

/** Duplicates and a reorder window for one endpoint; `drawn` counts its deliveries so far, so a seed repeats. */
export interface EndpointChaos {
  duplicate: number
  reorder_window_s: number
  seed: number
  drawn: number
}

export type DeliveryRecord = Delivery & {
  account_id: string
  /** Chaos drew a duplicate for it: once an attempt succeeds, the same delivery is sent once more. */
  chaos_duplicate?: true
  /** Its endpoint's `redeliveries` when it was made; absent while that was none. */
  endpoint_redeliveries?: number
  /** The account's restore that wrote it (`restoredDelivery`): an attempt out before that restore is not recorded. */
  restore?: number
  /** It went dead and counted toward disabling its endpoint: going dead again after a manual retry counts nothing. */
  dead_counted?: true
}

/** A server-wide value that must survive a restart: how far the clock was advanced. */
export interface SettingRecord {
  id: string
  account_id: ''
  value: number
}

/** The settings record `id` holding `value`. */
export const settingRecord = (id: string, value: number): SettingRecord => ({id, account_id: '', value})

/**
 * The mark of an event whose deliveries are still to be written (docs/storage.md, "Deferred fan-out"): stored
 * with the event, taken off by the unit that writes its deliveries, so a start finishes what a stop left.
 */
export interface FanOutRecord {
  /** The event's id. */
  id: string
  /** Server-wide, as the outbox that writes and reads marks is: an account's deletion leaves them to it. */
  account_id: ''
  /** Scheduler clock, ms: when the deliveries fall due (when the event was made). */
  due: number
}

/** A saved state of one account (docs/snapshots.md): its records, in the form an export shows them. */
export interface SnapshotRecord {
  /** `{account_id}/{name}`: a name is the account's own. */
  id: string
  name: string
  created_at: string
  /** The scheduler clock's offset when it was saved, in ms: a restore puts the clock back there. */
  clock_offset_ms: number
  counts: Record<string, number>
  records: SnapshotRecords
  /** The account an imported document was exported from, when another: its ids may be that account's too. */
  imported_from?: string
  account_id: string
}

/** Every collection the store holds, by name. */
export interface Collections {
  accounts: AccountRecord
  api_keys: ApiKeyRecord
  locations: LocationRecord
  checks: CheckRecord
  claims: ClaimRecord
  payments: PaymentRecord
  feedback: FeedbackRecord
  idempotency_keys: IdempotencyRecord
  events: EventRecord
  webhook_endpoints: WebhookEndpointRecord
  deliveries: DeliveryRecord
  settings: SettingRecord
  fan_outs: FanOutRecord
  snapshots: SnapshotRecord
}
export type CollectionName = keyof Collections
