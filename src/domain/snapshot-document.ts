import * as z from 'zod'
import {DRAWS} from './chaos.js'
import {MAX_DETAILS} from './errors.js'
import {QUERYABLE_RULE, unqueryableAt} from './queryable-text.js'
import type {SnapshotRecord} from './records.js'
import {
  Cents,
  ChaosInput,
  Check,
  CheckItem,
  CheckTable,
  Claim,
  ClaimInput,
  Currency,
  Delivery,
  Event,
  EventType,
  ExternalCheckId,
  Feedback,
  FeedbackInput,
  IdOf,
  ItemExternalId,
  ItemName,
  ItemNote,
  Location,
  MAX_ITEMS,
  noRepeatedExternalId,
  Payment,
  TimeZone,
  Totals,
  WebhookEndpoint,
  WebhookSecret,
} from './schemas.js'
import {StoredEndpointUrl} from './endpoint-url.js'
import {Timestamp, TimestampInput} from './instants.js'
import {MAX_CLOCK_OFFSET_MS} from './timestamps.js'
import {paymentState} from './money.js'
import {type AccountKeyed, type Ledger, contradictions, foreignKeys} from './snapshot-consistency.js'
import {AccountId} from './seed-schema.js'
import {READABLE} from './parse-messages.js'
import {IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_RULE} from './constants.js'

import {SNAPSHOT_FORMAT, type SnapshotCollection, SnapshotName, STORED_COLLECTIONS} from './snapshots.js'

/**
 * An id as PostgreSQL keeps it in an index: past about 2.7 kB an index refuses it, and a restore would answer
 * 500. Each kind's own rule is narrower (`RECORD_SCHEMAS`); this one, of every record, comes first.
 */
const Indexed = z.string().max(512)

/** How deep a record may nest: tablepay's own nest five levels, and PostgreSQL's `json` refuses a few thousand. */
const MAX_DEPTH = 32

/**
 * The most entries a list in a record may hold: tablepay's own hold a few (a check's items, at most 500),
 * and zod gathers a problem for each wrong entry before it answers (docs/snapshots.md).
 */
const MAX_LIST = 5000

const TOO_DEEP = `nests deeper than ${MAX_DEPTH} levels`

/** A number JSON.parse read as ±Infinity (`1e400`): kept, it would be written back as null. */
const PAST_DOUBLE = 'is a number past the largest JSON can hold (about 1.8e308): it would not be kept as it is'

/**
 * Where in `value` it holds a list longer than MAX_LIST, a number past the largest double, or nests past
 * `levels` more levels (named at `value` itself: the path to the depth would be as long); undefined if nowhere.
 */
function outsizedAt(value: unknown, levels: number): {path: string[]; message: string} | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return {path: [], message: PAST_DOUBLE}
  if (typeof value !== 'object' || value === null) return undefined
  if (levels === 0) return {path: [], message: TOO_DEEP}
  if (Array.isArray(value) && value.length > MAX_LIST)
    return {path: [], message: `holds ${value.length} entries, more than the ${MAX_LIST} a list in a record may`}
  for (const key in value) {
    const found = outsizedAt((value as Record<string, unknown>)[key], levels - 1)
    if (found) return found.message === TOO_DEEP ? found : {...found, path: [key, ...found.path]}
  }
  return undefined
}

/** A record as an export holds it: an object with its id (the rest is the store's own, checked by kind below). */
const Stored = z.looseObject({id: Indexed.min(1)})

/**
 * A collection's records, each checked one at a time by `Records` below: zod's own array would gather every
 * problem of every record first, and 160,000 wrong ones overflowed its stack. The document shows each as `Stored`.
 */
const StoredList = z.array(z.unknown()).meta({items: withoutDialect(z.toJSONSchema(Stored, {io: 'input'}))})

/** A JSON schema to nest in another: without its `$schema`. */
function withoutDialect({$schema, ...schema}: z.core.JSONSchema.BaseSchema): object {
  return schema
}

/** The resource each type of event holds in `data`: what its GET answered when the event was made. */
const EVENT_DATA: Record<EventType, z.ZodType> = {
  'check.created': Check,
  'check.updated': Check,
  'check.closed': Check,
  'check.fully_paid': Check,
  'payment.succeeded': Payment,
  'payment.refunded': Payment,
  'claim.created': Claim,
  'feedback.received': Feedback,
}

/** An event whose `data` is the resource its type names. */
const StoredEvent = Event.extend({id: IdOf('evt')}).superRefine((event, context) => {
  for (const issue of EVENT_DATA[event.type].safeParse(event.data, READABLE).error?.issues ?? [])
    context.addIssue({code: 'custom', message: issue.message, path: ['data', ...issue.path]})
})

/**
 * Each kind of record as the store keeps it and the API shows it: the API's own schema, plus what the store
 * keeps beside it. A record that lacked a field would be imported and then answer every read of it with a 500;
 * an idempotency key's answer is replayed as it is, so it is one of the answers a key is kept for. Its ids are
 * as the server makes them and its routes take them (`IdOf`; a check's external id as a push takes it): one
 * with a `/`, a space or `..` could be neither read nor changed. An id naming another record of the document
 * is compared with that record's (`contradictions`).
 */
const RECORD_SCHEMAS: {[C in SnapshotCollection]: z.ZodType} = {
  // as a seed gives them: a currency the pages cannot show makes them throw
  locations: Location.extend({id: IdOf('loc'), timezone: TimeZone, currency: Currency}),
  // as pushes, claims and payments leave them: a version from 1, totals that add up, amounts, items and text
  // that a request takes
  checks: Check.omit({guest_url: true, amount_due_cents: true, payment_status: true}).extend({
    id: IdOf('chk'),
    external_id: ExternalCheckId,
    guest_token: IdOf('gt'),
    version: z.int().min(1).nullable(),
    table: CheckTable,
    totals: Totals,
    items: z
      .array(CheckItem.safeExtend({external_id: ItemExternalId, name: ItemName, note: ItemNote.nullable()}))
      .max(MAX_ITEMS)
      .superRefine(noRepeatedExternalId),
  }),
  claims: Claim.extend({id: IdOf('clm'), items: ClaimInput.shape.items.superRefine(noRepeatedExternalId)}),
  payments: Payment.extend({
    id: IdOf('pay'),
    amount_cents: Cents.min(1),
    refunds: z.array(z.object({amount_cents: Cents.min(1), created_at: Timestamp})),
  }).superRefine((payment, context) => {
    const refunded = payment.refunds.reduce((sum, refund) => sum + refund.amount_cents, 0)
    const paid = payment.amount_cents + payment.tip_cents
    const [field, message] =
      payment.amount_refunded_cents !== refunded
        ? ['amount_refunded_cents', `must be ${refunded}, what its refunds add up to`]
        : refunded > paid
          ? ['refunds', `add up to more than the ${paid} paid`]
          : payment.status !== paymentState(payment)
            ? ['status', `must be ${paymentState(payment)} after ${refunded} refunded of ${paid}`]
            : []
    if (field) context.addIssue({code: 'custom', message, path: [field]})
  }),
  feedback: Feedback.extend({id: IdOf('fb'), rating: FeedbackInput.shape.rating}),
  idempotency_keys: z.looseObject({
    id: z.string(),
    // as a request sends it: no other is ever replayed
    key: z.string().regex(IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_RULE),
    request_hash: z.string(),
    status: z.int().min(200).max(299),
    body: z.union([Claim, Payment, Feedback]),
    created_at: Timestamp,
    expires_at: Timestamp.optional(),
  }),
  events: StoredEvent,
  webhook_endpoints: WebhookEndpoint.extend({
    // `foreignKeys` checks it too, for a restore of an earlier import: this names it beside other problems
    id: IdOf('we'),
    // as a record holds it: another scheme, or no URL at all, fails every attempt
    url: StoredEndpointUrl,
    // as the server makes and takes them: an empty or odd one signs nothing
    secret: WebhookSecret,
    consecutive_dead: z.int().min(0),
    previous_secret: WebhookSecret.optional(),
    previous_secret_expires_at: Timestamp.optional(),
    chaos: ChaosInput.required()
      .extend({
        drawn: z
          .int()
          .min(0)
          .max(DRAWS - 1),
      })
      .optional(),
    stored_as: z.string().optional(),
    redeliveries: z.int().min(0).optional(),
  }),
  // a pending delivery without a due time would be due never, and set every queue's timer to NaN; one of no
  // event type would go out, where a retry of it is refused (no endpoint takes it)
  deliveries: Delivery.extend({
    id: IdOf('dlv'),
    endpoint_id: IdOf('we'),
    event_id: IdOf('evt'),
    event_type: EventType,
    superseded_by: IdOf('dlv').optional(),
  }).refine((delivery) => (delivery.status === 'pending') === (delivery.next_attempt_at !== null), {
    path: ['next_attempt_at'],
    message: 'must be a time while the delivery is pending, and null once it has ended',
  }),
}

/** The kinds of record that hold only text PostgreSQL can query (queryable-text.ts). */
const QUERYABLE: ReadonlySet<SnapshotCollection> = new Set(['payments', 'webhook_endpoints', 'deliveries'])

/** The collections whose records `contradictions` compares. */
const LEDGER = [
  'locations',
  'checks',
  'claims',
  'payments',
  'feedback',
  'idempotency_keys',
  'events',
  'deliveries',
] as const satisfies SnapshotCollection[]

/** The fields besides `id` that no two records of a collection share: a check's keys, which its reads find it by. */
const UNIQUE: Partial<Record<SnapshotCollection, readonly string[]>> = {checks: ['external_id', 'guest_token']}

/**
 * Each record of `name` whose id, or another field no two may share (UNIQUE), an earlier record has too:
 * its place, the field, and `what` it holds twice ("checks external_id t7").
 */
function* repeats(name: SnapshotCollection, records: readonly unknown[]) {
  const seen = new Map<string, Set<unknown>>()
  for (const [index, record] of records.entries()) {
    // a record that is none, or a field that is no text, has a problem of its own
    if (typeof record !== 'object' || record === null) continue
    for (const field of ['id', ...(UNIQUE[name] ?? [])]) {
      const values = seen.get(field) ?? seen.set(field, new Set()).get(field)!
      const value = (record as Record<string, unknown>)[field]
      if (typeof value !== 'string' || value === '') continue
      if (values.has(value)) yield {index, field, what: `${name} ${field === 'id' ? '' : `${field} `}${String(value)}`}
      values.add(value)
    }
  }
}

/**
 * The first record a stored snapshot holds twice, as `repeats` says it. An import refuses such a document; a
 * snapshot imported before it did may still hold one, and its restore would break the store's own keys.
 */
export function repeatedRecord(snapshot: SnapshotRecord): string | undefined {
  for (const name of STORED_COLLECTIONS) {
    const [first] = repeats(name, snapshot.records[name])
    if (first) return first.what
  }
  return undefined
}

/** What is wrong with `record` as a record of `name`: where, and what. */
function* recordProblems(name: SnapshotCollection, record: unknown): Generator<{path: PropertyKey[]; message: string}> {
  const stored = Stored.safeParse(record, READABLE)
  if (!stored.success) return yield* stored.error.issues
  // first: a list too long for zod, and a nesting too deep for the read for unqueryable text, which recurses
  const outsized = outsizedAt(record, MAX_DEPTH)
  if (outsized) return yield outsized
  const kind = RECORD_SCHEMAS[name].safeParse(record, READABLE)
  if (!kind.success) yield* kind.error.issues
  const unqueryable = QUERYABLE.has(name) ? unqueryableAt(record) : undefined
  if (unqueryable) yield {path: unqueryable, message: QUERYABLE_RULE}
}

/** Records of a kind checked between two pauses (`snapshotDocument`): requests get in during a long import. */
const RECORDS_PER_TURN = 500

/** Where a check of many records may pause (`addIssues`). */
const TURN = Symbol('turn')

type Issue = {path: PropertyKey[]; message: string}

/**
 * The problems of each collection's records as the store keeps them: objects with an id, none nested past
 * MAX_DEPTH nor holding a list longer than MAX_LIST, each kind checked by its schema (RECORD_SCHEMAS), only
 * text PostgreSQL can query in the kinds it queries (queryable-text.ts), and no id (nor a check's external id
 * or guest token) twice in a collection. It stops at the first MAX_DETAILS problems and one more, so that the
 * answer can say there are more (`validationError`); a TURN every RECORDS_PER_TURN records of a kind.
 */
function* recordsProblems(records: Partial<Record<SnapshotCollection, unknown[]>>): Generator<Issue | typeof TURN> {
  let problems = 0
  for (const name of STORED_COLLECTIONS) {
    const list = records[name] ?? []
    for (const [i, record] of list.entries()) {
      for (const {path, message} of recordProblems(name, record)) {
        yield {path: [name, i, ...path], message}
        if (++problems > MAX_DETAILS) return
      }
      if ((i + 1) % RECORDS_PER_TURN === 0) yield TURN
    }
    for (const {index, field, what} of repeats(name, list)) {
      yield {path: [name, index, field], message: `${what} is there twice`}
      if (++problems > MAX_DETAILS) return
    }
  }
  // records across kinds are compared once each is of its kind: else a field compared may not be there
  if (problems > 0) return
  const ledger = Object.fromEntries(LEDGER.map((name) => [name, records[name] ?? []])) as unknown as Ledger
  for (const issue of contradictions(ledger)) {
    yield issue
    if (++problems > MAX_DETAILS) return
  }
}

/** Adds `issues` to `context`; at each TURN, with `pause`, it goes on once that resolves, and so resolves at the end. */
function addIssues(
  issues: Iterator<Issue | typeof TURN>,
  context: z.RefinementCtx,
  pause?: () => Promise<unknown>,
): void | Promise<void> {
  for (let next = issues.next(); !next.done; next = issues.next()) {
    if (next.value !== TURN) context.addIssue({code: 'custom', ...next.value})
    else if (pause) return pause().then(() => addIssues(issues, context, pause))
  }
}

/**
 * An exported snapshot (`GET /sim/snapshots/{name}/export`), and the body of `POST /sim/snapshots/import`.
 * With `pause`, its check of the records waits for it every few hundred records, letting other work run:
 * parse with `safeParseAsync` then.
 */
export function snapshotDocument(pause?: () => Promise<unknown>) {
  // an object of the collections, not zod's record: that drops a `__proto__` key unchecked, where this names it.
  // Documented as the record it is, one list's schema for all of them rather than a copy for each.
  const records = z
    .strictObject(Object.fromEntries(STORED_COLLECTIONS.map((name) => [name, StoredList.optional()])))
    .superRefine((records, context) => addIssues(recordsProblems(records), context, pause))
    .meta({
      properties: undefined,
      propertyNames: {type: 'string', enum: STORED_COLLECTIONS},
      additionalProperties: withoutDialect(z.toJSONSchema(StoredList, {io: 'input'})),
    })
    .describe("The account's records by collection, as `export` gives them")
  return z
    .strictObject({
      tablepay_snapshot: z.literal(SNAPSHOT_FORMAT, {
        error: `must be ${SNAPSHOT_FORMAT}: this server reads snapshots of format ${SNAPSHOT_FORMAT}`,
      }),
      name: SnapshotName,
      account: AccountId,
      created_at: TimestampInput,
      // as the clock keeps it: an advance of any part of a second leaves a fraction of a millisecond
      clock_offset_ms: z.number().min(0).max(MAX_CLOCK_OFFSET_MS).optional(),
      records,
    })
    .superRefine((document, context) => {
      // once each record is of its kind, the keys compared are there; the account's own then (`moved` moves them)
      if (context.issues.length > 0) return
      let problems = 0
      for (const {path, message} of foreignKeys(document.account, document.records as AccountKeyed)) {
        context.addIssue({code: 'custom', message, path: ['records', ...path]})
        if (++problems > MAX_DETAILS) return
      }
    })
}

export const SnapshotDocument = snapshotDocument()
export type SnapshotDocument = z.infer<typeof SnapshotDocument>
