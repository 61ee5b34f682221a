import * as z from 'zod'
import {CHECK_STATUSES, DELIVERY_STATUSES, EVENT_TYPES, EXTERNAL_CHECK_ID} from './constants.js'
import {MAX_CENTS} from './money.js'
import {SECRET_FORMAT, SECRET_RULE} from './endpoints.js'
import {QUERYABLE_RULE, queryable} from './queryable-text.js'
import {EndpointUrl} from './endpoint-url.js'
import {Timestamp, TimestampInput} from './instants.js'
import {idPattern, idRule, type KeyPrefix} from './ids.js'

export {CHECK_STATUSES, DELIVERY_STATUSES, EVENT_TYPES}

/** An id of the kind `prefix` begins, as the server makes it and routes reach it (`idPattern`, ids.ts). */
export const IdOf = (prefix: KeyPrefix) => z.string().regex(idPattern(prefix), idRule(prefix))

/** An item's id on the POS, as a push gives it and a claim names it. */
export const ItemExternalId = z.string().min(1).max(64)

/** Money in minor units (cents): an integer from 0 to MAX_CENTS. */
export const Cents = z.int().min(0).max(MAX_CENTS)

/** What a sum of amounts may reach: the same bound as each amount, named after the field it is reported on. */
const withinLimit = (sum: number) => sum <= MAX_CENTS
const LIMIT_MESSAGE = `must be at most ${MAX_CENTS} cents`

const threeDecimals = [(q: number) => Number(q.toFixed(3)) === q, 'must have at most 3 decimals'] as const

/** A positive count with at most three decimals (0.5 kg, 1.25 l). */
export const Quantity = z
  .number()
  .positive()
  .max(1_000_000)
  .refine(...threeDecimals)

export const CheckStatus = z.enum(CHECK_STATUSES)

export const CheckTable = z.strictObject({
  number: z.string().min(1).max(32),
})

/** An item's worth is an amount too, held to the same limit (docs/api.md, "Amounts"). */
const worthWithinLimit: [(item: {quantity: number; price_cents: number}) => boolean, z.core.$ZodCustomParams] = [
  (item) => withinLimit(item.quantity * item.price_cents),
  {message: `quantity × price_cents ${LIMIT_MESSAGE}`, path: ['price_cents']},
]

/** An item's text as a push takes it; an import holds a check's items to the same (snapshot-document.ts). */
export const ItemName = z.string().min(1).max(200)
export const ItemNote = z.string().max(500)

/** The most items a check holds (a push, an import) and a claim takes. */
export const MAX_ITEMS = 500

export const ItemInput = z
  .strictObject({
    external_id: ItemExternalId,
    name: ItemName,
    quantity: Quantity,
    price_cents: Cents,
    note: ItemNote.optional(),
  })
  .refine(...worthWithinLimit)

export const Totals = z
  .strictObject({
    subtotal_cents: Cents,
    tax_cents: Cents,
    total_cents: Cents,
  })
  .refine((t) => t.total_cents === t.subtotal_cents + t.tax_cents, {
    message: 'must equal subtotal_cents + tax_cents',
    path: ['total_cents'],
  })

/** Refuses a list in which two entries share an `external_id`, naming the later one. */
export function noRepeatedExternalId(items: readonly {external_id: string}[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>()
  items.forEach((item, i) => {
    if (seen.has(item.external_id))
      ctx.addIssue({code: 'custom', path: [i, 'external_id'], message: `duplicate external_id "${item.external_id}"`})
    seen.add(item.external_id)
  })
}

/** The body of `PUT /checks/external/{external_check_id}`: the complete current state of a check. */
export const CheckPush = z.strictObject({
  location_id: z.string().min(1).max(64).optional(),
  version: z.int().min(1).optional(),
  table: CheckTable,
  status: CheckStatus,
  items: z.array(ItemInput).max(MAX_ITEMS).superRefine(noRepeatedExternalId),
  totals: Totals,
})
export type CheckPush = z.infer<typeof CheckPush>

/** The caller's id of a check, as it appears in the URL. */
export const ExternalCheckId = z
  .string()
  .regex(EXTERNAL_CHECK_ID, 'must be 1-64 characters of A-Z a-z 0-9 . _ : ~ @ + = -, not . or .. alone')

/** The body of `POST /sim/checks/{id}/claims`: what one guest takes. */
export const ClaimInput = z.strictObject({
  items: z
    .array(
      z.strictObject({
        external_id: ItemExternalId,
        quantity: Quantity,
      }),
    )
    .min(1)
    .max(MAX_ITEMS),
})
export type ClaimInput = z.infer<typeof ClaimInput>

/** The body of `POST /sim/checks/{id}/payments`. `simulate: "decline"` makes the card decline (402, nothing changes). */
export const PaymentInput = z
  .strictObject({
    amount_cents: Cents.min(1),
    tip_cents: Cents.optional(),
    claim_id: z.string().min(1).max(64).optional(),
    simulate: z.literal('decline').optional(),
  })
  // the tip's to blame only where there is one, and the amount alone is within the limit
  .refine(
    (p) => p.tip_cents === undefined || !withinLimit(p.amount_cents) || withinLimit(p.amount_cents + p.tip_cents),
    {
      message: `amount_cents + tip_cents ${LIMIT_MESSAGE}`,
      path: ['tip_cents'],
    },
  )
export type PaymentInput = z.infer<typeof PaymentInput>

/** The body of `POST /sim/payments/{id}/refund`; without `amount_cents`, everything left is refunded. */
export const RefundInput = z.strictObject({
  amount_cents: Cents.min(1).optional(),
})
export type RefundInput = z.infer<typeof RefundInput>

/** The body of `POST /sim/checks/{id}/feedback`. */
export const FeedbackInput = z.strictObject({
  rating: z.int().min(1).max(5),
  comment: z.string().max(2000).optional(),
})
export type FeedbackInput = z.infer<typeof FeedbackInput>

/** A location's currency: an ISO 4217 code's form, which the pages' `Intl.NumberFormat` takes (another throws). */
export const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be 3 capital letters, an ISO 4217 code such as EUR')

/** A location's time zone as a seed gives it: nothing reads it, so it is only bounded. */
export const TimeZone = z.string().min(1).max(64)

export const Location = z.object({
  id: z.string(),
  object: z.literal('location'),
  name: z.string(),
  timezone: z.string(),
  currency: z.string(),
  created_at: Timestamp,
})
export type Location = z.infer<typeof Location>

// counts as a push and claims leave them, so that an imported check's claims add up (docs/snapshots.md)
export const CheckItem = z
  .object({
    external_id: z.string(),
    name: z.string(),
    quantity: Quantity,
    price_cents: Cents,
    note: z.string().nullable(),
    claimed_quantity: z
      .number()
      .min(0)
      .refine(...threeDecimals),
  })
  .refine((item) => item.claimed_quantity <= item.quantity, {path: ['claimed_quantity'], message: 'exceeds quantity'})
  .refine(...worthWithinLimit)
export type CheckItem = z.infer<typeof CheckItem>

export const PAYMENT_STATUSES = ['unpaid', 'partially_paid', 'paid'] as const

export const Check = z.object({
  id: z.string(),
  object: z.literal('check'),
  external_id: z.string(),
  location_id: z.string(),
  table: z.object({number: z.string()}),
  status: CheckStatus,
  version: z.int().nullable(),
  items: z.array(CheckItem),
  totals: z.object({subtotal_cents: Cents, tax_cents: Cents, total_cents: Cents}),
  amount_paid_cents: Cents,
  amount_due_cents: Cents,
  payment_status: z.enum(PAYMENT_STATUSES),
  guest_url: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Check = z.infer<typeof Check>

export const Claim = z.object({
  id: z.string(),
  object: z.literal('claim'),
  check_id: z.string(),
  items: z.array(z.object({external_id: z.string(), quantity: z.number()})),
  created_at: Timestamp,
})
export type Claim = z.infer<typeof Claim>

export const PAYMENT_STATES = ['succeeded', 'partially_refunded', 'refunded'] as const

export const Payment = z.object({
  id: z.string(),
  object: z.literal('payment'),
  check_id: z.string(),
  claim_id: z.string().nullable(),
  amount_cents: Cents,
  tip_cents: Cents,
  amount_refunded_cents: Cents,
  status: z.enum(PAYMENT_STATES),
  refunds: z.array(z.object({amount_cents: Cents, created_at: Timestamp})),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Payment = z.infer<typeof Payment>

export const Feedback = z.object({
  id: z.string(),
  object: z.literal('feedback'),
  check_id: z.string(),
  rating: z.int(),
  comment: z.string().nullable(),
  created_at: Timestamp,
})
export type Feedback = z.infer<typeof Feedback>

export const EventType = z.enum(EVENT_TYPES)
export type EventType = z.infer<typeof EventType>

/** An endpoint's `event_types`: duplicates are dropped (docs/api.md), so a list may name a type more than once. */
const EventTypes = z.array(EventType).min(1).max(100)

export const Event = z.object({
  id: z.string(),
  object: z.literal('event'),
  type: EventType,
  created_at: Timestamp,
  data: z.record(z.string(), z.unknown()),
})
export type Event = z.infer<typeof Event>

export const SCOPES = ['read', 'write'] as const
export type Scope = (typeof SCOPES)[number]

/** `GET /sim/key`: what the caller's key may do, so a page offers only what it allows. */
export const KeyInfo = z.object({
  object: z.literal('api_key'),
  account_id: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  /** `tp_test_…` and the key's last 4 characters, as the request log shows it. */
  key_hint: z.string(),
})
export type KeyInfo = z.infer<typeof KeyInfo>

const EndpointDescription = z.string().max(500).refine(queryable, QUERYABLE_RULE)

/** A signing secret chosen by the caller (a seed, `POST /sim/webhook-endpoints`, `listen --secret`). */
export const WebhookSecret = z.string().regex(SECRET_FORMAT, SECRET_RULE)

/** An endpoint with a known secret, as a seed lists it and `POST /sim/webhook-endpoints` takes it. */
export const KnownSecretEndpointInput = z.strictObject({
  // as the server makes them: no other names a key of the store
  id: IdOf('we').optional(),
  url: EndpointUrl,
  event_types: EventTypes.optional(),
  description: EndpointDescription.optional(),
  secret: WebhookSecret,
})
export type KnownSecretEndpointInput = z.infer<typeof KnownSecretEndpointInput>

/** The body of `POST /webhook-endpoints`. */
export const WebhookEndpointInput = z.strictObject({
  url: EndpointUrl,
  event_types: EventTypes.optional(),
  description: EndpointDescription.optional(),
})
export type WebhookEndpointInput = z.infer<typeof WebhookEndpointInput>

export const WebhookEndpoint = z.object({
  id: z.string(),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  event_types: z.array(EventType),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>

export const DeliveryAttempt = z.object({
  attempt: z.int().min(1),
  /** Wall-clock time the attempt ended (its answer or failure); it was sent `duration_ms` before. */
  at: Timestamp,
  /** Scheduler time it was due at: with the clock advanced, this shows the retry schedule. */
  scheduled_at: Timestamp,
  status_code: z.int().nullable(),
  duration_ms: z.int().min(0),
  error: z.string().nullable(),
  response_body: z.string().nullable(),
  /**
   * A copy, not a try: sent again by delivery chaos after a success, or made again by an instance after another
   * took the attempt over and recorded it (docs/postgres.md).
   */
  duplicate: z.literal(true).optional(),
})
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>

export const Delivery = z.object({
  id: z.string(),
  object: z.literal('delivery'),
  endpoint_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.array(DeliveryAttempt),
  /** Scheduler time (see the clock) of the next attempt; null once it has ended. */
  next_attempt_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  /** On a `superseded` delivery only: the delivery of the same event to the same endpoint that succeeded. */
  superseded_by: z.string().optional(),
})
export type Delivery = z.infer<typeof Delivery>

/** The most the clock advances at once, in seconds: ten years. */
export const MAX_ADVANCE_S = 10 * 365 * 24 * 3600

export const ClockAdvance = z.strictObject({
  seconds: z.number().positive().max(MAX_ADVANCE_S),
})

/** The answer of `POST /webhook-endpoints/{id}/test`: how the signed ping went. */
export const WebhookTestResult = z.object({
  object: z.literal('webhook_test'),
  endpoint_id: z.string(),
  event_id: z.string(),
  succeeded: z.boolean(),
  status_code: z.int().nullable(),
  duration_ms: z.int(),
  error: z.string().nullable(),
  response_body: z.string().nullable(),
})
export type WebhookTestResult = z.infer<typeof WebhookTestResult>

/** What a running advance waits for (`GET /sim/clock`): the attempts out, oldest first (at most 5 named). */
export const ClockAdvanceProgress = z.object({
  to: Timestamp,
  receiver_timeout_ms: z.int(),
  attempts_out: z.int(),
  waiting_for: z.array(z.object({endpoint_id: z.string(), delivery_id: z.string(), since: Timestamp})),
})

/** The scheduler clock (`GET /sim/clock`); `attempts` only in the answer of an advance, `advance` only in a GET. */
export const Clock = z.object({
  object: z.literal('clock'),
  now: Timestamp,
  offset_seconds: z.number(),
  time_scale: z.number(),
  attempts: z.int().optional(),
  advance: ClockAdvanceProgress.nullable(),
})
export type Clock = z.infer<typeof Clock>

/** The answer of a DELETE. */
export const Deleted = z.object({id: z.string(), object: z.string(), deleted: z.literal(true)})
export type Deleted = z.infer<typeof Deleted>

/** The answer of `POST /sim/accounts`: an empty account with copies of the caller's locations, and its one key. */
export const ScratchAccount = z.object({
  id: z.string(),
  object: z.literal('account'),
  name: z.string(),
  scratch_of: z.string(),
  created_at: Timestamp,
  locations: z.array(Location.extend({copy_of: z.string()})),
  api_keys: z.array(z.object({key: z.string(), scopes: z.array(z.enum(SCOPES))})),
})
export type ScratchAccount = z.infer<typeof ScratchAccount>

/** The body of `PATCH /webhook-endpoints/{id}`: what changes; the rules of creation apply. */
export const WebhookEndpointUpdate = z.strictObject({
  url: EndpointUrl.optional(),
  event_types: EventTypes.optional(),
  description: EndpointDescription.optional(),
})
export type WebhookEndpointUpdate = z.infer<typeof WebhookEndpointUpdate>

/** The body of `POST /webhook-endpoints/{id}/rotate-secret`: how long the old secret keeps signing (default a day). */
export const RotateSecretInput = z.strictObject({expire_after_s: z.int().min(0).max(86_400).optional()})

/** The body of `POST /events/{id}/resend`. */
export const ResendInput = z.strictObject({endpoint_id: z.string().min(1).max(100)})

/** The body of `POST /webhook-endpoints/{id}/recover`: events created at or after `since` (wall clock). */
export const RecoverInput = z.strictObject({since: TimestampInput})

/** The answer of a recovery: how many events were queued again. */
export const Recovery = z.object({
  object: z.literal('recovery'),
  endpoint_id: z.string(),
  since: Timestamp,
  event_count: z.int().min(0),
})
export type Recovery = z.infer<typeof Recovery>

/** The body of `PUT /sim/webhook-endpoints/{id}/chaos`. */
export const ChaosInput = z.strictObject({
  duplicate: z.number().min(0).max(1).optional(),
  reorder_window_s: z.number().min(0).max(3600).optional(),
  seed: z
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
})
export type ChaosInput = z.infer<typeof ChaosInput>

/** An endpoint's delivery chaos; `enabled: false` (and zeros) when off. */
export const Chaos = z.object({
  object: z.literal('webhook_chaos'),
  endpoint_id: z.string(),
  enabled: z.boolean(),
  duplicate: z.number(),
  reorder_window_s: z.number(),
  seed: z.int().nullable(),
})
export type Chaos = z.infer<typeof Chaos>

/** The answer of `POST /sim/listen-secret`: the secret every `tablepay listen` of the account signs with. */
export const ListenSecret = z.object({object: z.literal('listen_secret'), secret: z.string()})
export type ListenSecret = z.infer<typeof ListenSecret>
