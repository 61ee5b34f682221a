// The resources and inputs of the API, as the client takes and returns them: the domain's types, which
// the client shares with the server (ARCHITECTURE.md, "The client never imports the server").
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
  KeyInfo,
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
} from '../domain/schemas.js'
export type {Fault, FaultInput} from '../domain/faults.js'
export type {RequestEntry, RequestFilters} from '../domain/request-log.js'
export type {Snapshot} from '../domain/snapshots.js'
export type {SnapshotDocument} from '../domain/snapshot-document.js'
export type {RequestStreamMessage, StreamEndpointDeleted, StreamMessage, StreamReset} from './stream.js'

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
