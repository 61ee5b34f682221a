import * as z from 'zod'
import {Fault, FaultInput} from '../domain/faults.js'
import {RequestEntry} from '../domain/request-log.js'
import {SnapshotDocument} from '../domain/snapshot-document.js'
import {Snapshot, SnapshotInput, SnapshotName} from '../domain/snapshots.js'
import {
  Chaos,
  ChaosInput,
  Check,
  CheckPush,
  Claim,
  ClaimInput,
  Clock,
  ClockAdvance,
  Deleted,
  Delivery,
  Event,
  ExternalCheckId,
  Feedback,
  FeedbackInput,
  KnownSecretEndpointInput,
  ListenSecret,
  Location,
  Payment,
  PaymentInput,
  RecoverInput,
  Recovery,
  RefundInput,
  ResendInput,
  RotateSecretInput,
  ScratchAccount,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointUpdate,
  WebhookTestResult,
} from '../domain/schemas.js'

// the answers of the API that are not a resource of the domain as it is

/** The answer that registers an endpoint: the only one that shows its secret. */
export const WebhookEndpointWithSecret = WebhookEndpoint.extend({secret: z.string().regex(/^whsec_/)})

export const FaultsCleared = z.object({object: z.literal('fault_clear'), deleted: z.int().min(0)})

/** The body of an operation that takes none: none at all, or `{}` (docs/api.md, "The OpenAPI document"). */
export const NoBody = z.strictObject({})

export const Reset = z.object({object: z.literal('reset'), deleted: z.record(z.string(), z.int().min(0))})

/** An event as delivered and listed: its `data` is the resource it is about, told apart by `object`. */
export const TypedEvent = Event.extend({data: z.discriminatedUnion('object', [Check, Claim, Payment, Feedback])})

/** What `POST /webhook-endpoints/{id}/test` delivers: not an event of the account, so never listed. */
const PingEvent = Event.extend({
  type: z.literal('ping'),
  data: z.object({object: z.literal('ping'), endpoint_id: z.string()}),
})

/**
 * The schemas the document names (`#/components/schemas/<name>`); a list of
 * one of them is `<name>List`. Any other schema is written inline.
 */
export const NAMED_SCHEMAS = {
  CheckPush,
  ClaimInput,
  PaymentInput,
  RefundInput,
  FeedbackInput,
  WebhookEndpointInput,
  ClockAdvance,
  Location,
  Check,
  Claim,
  Payment,
  Feedback,
  Event: TypedEvent,
  PingEvent,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookTestResult,
  Delivery,
  Clock,
  Deleted,
  Reset,
  ScratchAccount,
  // the receiver side: known secrets, rotation, updates, resend, recovery and chaos
  KnownSecretEndpointInput,
  WebhookEndpointUpdate,
  RotateSecretInput,
  ResendInput,
  RecoverInput,
  Recovery,
  ChaosInput,
  Chaos,
  ListenSecret,
  RequestLogEntry: RequestEntry,
  FaultInput,
  Fault,
  SnapshotInput,
  Snapshot,
  SnapshotDocument,
} satisfies Record<string, z.ZodType>

/** Path parameters whose values are checked (a 422 when they do not fit); any other is a plain string. */
export const PATH_PARAMS: Record<string, z.ZodType> = {external_check_id: ExternalCheckId, name: SnapshotName}
