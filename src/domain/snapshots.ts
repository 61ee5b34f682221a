import * as z from 'zod'
import {DRAWS} from './chaos.js'
import {chosenEndpointKey, endpointKey} from './endpoints.js'
import {MAX_DETAILS} from './errors.js'
import {QUERYABLE_RULE, unqueryableAt} from './queryable-text.js'
import type {Collections, DeliveryRecord, SnapshotRecord} from './records.js'
import {
  Cents,
  ChaosInput,
  Check,
  CheckItem,
  Claim,
  ClaimInput,
  Currency,
  Delivery,
  Event,
  type EventType,
  Feedback,
  FeedbackInput,
  Location,
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

/** The format version of an exported snapshot (`tablepay_snapshot`). */
export const SNAPSHOT_FORMAT = 1

/** What a snapshot holds of an account, in the order a restore writes them (docs/snapshots.md). */
export const SNAPSHOT_COLLECTIONS = [
  'locations',
  'checks',
  'claims',
  'payments',
  'refunds',
  'feedback',
  'idempotency_keys',
  'events',
  'webhook_endpoints',
  'deliveries',
] as const
export type SnapshotCollection = Exclude<(typeof SNAPSHOT_COLLECTIONS)[number], 'refunds'>

/** The collections a snapshot stores: refunds are part of their payment's record, so they are counted, not stored. */
export const STORED_COLLECTIONS = SNAPSHOT_COLLECTIONS.filter((c) => c !== 'refunds') as SnapshotCollection[]

export type SnapshotRecords = {[C in SnapshotCollection]: Collections[C][]}

// not `import`: `/sim/snapshots/import` is the import's route, and a snapshot of that name could not be read,
// restored or deleted
export const SnapshotName = z
  .string()
  .regex(
    /^(?!import$)[a-z0-9][a-z0-9_-]{0,63}$/,
    'must be 1-64 characters of a-z 0-9 _ -, starting with a letter or digit, and not import (the import route)',
  )

/** The body of `POST /sim/snapshots`. */
export const SnapshotInput = z.strictObject({name: SnapshotName})

/** A snapshot as the API shows it: its name, when it was saved and how many records of each kind it holds. */
export const Snapshot = z.object({
  object: z.literal('snapshot'),
  name: z.string(),
  created_at: z.iso.datetime(),
  counts: z.record(z.string(), z.int().min(0)),
})
export type Snapshot = z.infer<typeof Snapshot>

/**
 * A text PostgreSQL keeps in an index: an id, a check's external id or guest token, a delivery's event. Past
 * about 2.7 kB an index refuses it, and a restore would answer 500; tablepay's own are under 350 characters.
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

/**
 * Where in `value` it holds a list longer than MAX_LIST, or nests past `levels` more levels (named at
 * `value` itself: the path to the depth would be as long); undefined if nowhere.
 */
function outsizedAt(value: unknown, levels: number): {path: string[]; message: string} | undefined {
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
const StoredEvent = Event.superRefine((event, context) => {
  for (const issue of EVENT_DATA[event.type].safeParse(event.data, READABLE).error?.issues ?? [])
    context.addIssue({code: 'custom', message: issue.message, path: ['data', ...issue.path]})
})

/**
 * Each kind of record as the store keeps it and the API shows it: the API's own schema, plus what the store
 * keeps beside it. A record that lacked a field would be imported and then answer every read of it with a 500;
 * an idempotency key's answer is replayed as it is, so it is one of the answers a key is kept for.
 */
const RECORD_SCHEMAS: {[C in SnapshotCollection]: z.ZodType} = {
  // as a seed gives them: a currency the pages cannot show makes them throw
  locations: Location.extend({timezone: TimeZone, currency: Currency}),
  // as pushes, claims and payments leave them: a version from 1, totals that add up, amounts that a request takes
  checks: Check.omit({guest_url: true, amount_due_cents: true, payment_status: true}).extend({
    external_id: Indexed,
    guest_token: Indexed,
    version: z.int().min(1).nullable(),
    totals: Totals,
    items: z.array(CheckItem).superRefine(noRepeatedExternalId),
  }),
  claims: Claim.extend({items: ClaimInput.shape.items.superRefine(noRepeatedExternalId)}),
  payments: Payment.extend({
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
  feedback: Feedback.extend({rating: FeedbackInput.shape.rating}),
  idempotency_keys: z.looseObject({
    id: z.string(),
    key: z.string(),
    request_hash: z.string(),
    status: z.int().min(200).max(299),
    body: z.union([Claim, Payment, Feedback]),
    created_at: Timestamp,
    expires_at: Timestamp.optional(),
  }),
  events: StoredEvent,
  webhook_endpoints: WebhookEndpoint.extend({
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
  // a pending delivery without a due time would be due never, and set every queue's timer to NaN
  deliveries: Delivery.extend({event_id: Indexed}).refine(
    (delivery) => (delivery.status === 'pending') === (delivery.next_attempt_at !== null),
    {path: ['next_attempt_at'], message: 'must be a time while the delivery is pending, and null once it has ended'},
  ),
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

/**
 * Each collection's records as the store keeps them: objects with an id, none nested past MAX_DEPTH nor
 * holding a list longer than MAX_LIST, each kind checked by its schema (RECORD_SCHEMAS), only text
 * PostgreSQL can query in the kinds it queries (queryable-text.ts), and no id (nor a check's external id or
 * guest token) twice in a collection. It stops at the first MAX_DETAILS problems and one more, so that
 * the answer can say there are more (`validationError`).
 */
const Records = z
  .partialRecord(z.enum(STORED_COLLECTIONS), StoredList)
  .superRefine((records, context) => {
    let problems = 0
    const refuse = (message: string, path: PropertyKey[]) => {
      problems++
      context.addIssue({code: 'custom', message, path})
      return problems > MAX_DETAILS
    }
    for (const name of STORED_COLLECTIONS) {
      const list = records[name] ?? []
      for (const [i, record] of list.entries()) {
        for (const {path, message} of recordProblems(name, record)) if (refuse(message, [name, i, ...path])) return
      }
      for (const {index, field, what} of repeats(name, list))
        if (refuse(`${what} is there twice`, [name, index, field])) return
    }
    // records across kinds are compared once each is of its kind: else a field compared may not be there
    if (problems > 0) return
    const ledger = Object.fromEntries(LEDGER.map((name) => [name, records[name] ?? []])) as unknown as Ledger
    for (const {path, message} of contradictions(ledger)) refuse(message, path)
  })
  .describe("The account's records by collection, as `export` gives them")

/** An exported snapshot (`GET /sim/snapshots/{name}/export`), and the body of `POST /sim/snapshots/import`. */
export const SnapshotDocument = z
  .strictObject({
    tablepay_snapshot: z.literal(SNAPSHOT_FORMAT, {
      error: `must be ${SNAPSHOT_FORMAT}: this server reads snapshots of format ${SNAPSHOT_FORMAT}`,
    }),
    name: SnapshotName,
    account: AccountId,
    created_at: TimestampInput,
    // as the clock keeps it: an advance of any part of a second leaves a fraction of a millisecond
    clock_offset_ms: z.number().min(0).max(MAX_CLOCK_OFFSET_MS).optional(),
    records: Records,
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
export type SnapshotDocument = z.infer<typeof SnapshotDocument>

/** Where an account's snapshot is kept: its name is the account's own. */
export const snapshotKey = (accountId: string, name: string): string => `${accountId}/${name}`

/** How many records of each kind the snapshot holds; refunds are counted in their payments. */
export function snapshotCounts(records: SnapshotRecords): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const name of SNAPSHOT_COLLECTIONS) {
    counts[name] =
      name === 'refunds'
        ? records.payments.reduce((sum, payment) => sum + payment.refunds.length, 0)
        : records[name].length
  }
  return counts
}

/** A snapshot's fields before its records are read: a save's. */
export type SnapshotHead = Omit<SnapshotRecord, 'counts' | 'records' | 'imported_from'>

/** A saved snapshot as its save answers it: the records stay where they were written. */
export type SavedSnapshot = Omit<SnapshotRecord, 'records'>

/**
 * The snapshot of `records` with `head`'s fields, its counts made: in the
 * order of its fields, which the JSON of a save on PostgreSQL follows byte for
 * byte (src/postgres/snapshots.ts).
 */
export function snapshotRecord(head: SnapshotHead, records: SnapshotRecords): SnapshotRecord {
  const {id, name, created_at, clock_offset_ms, account_id} = head
  return {id, name, created_at, clock_offset_ms, counts: snapshotCounts(records), records, account_id}
}

export function renderSnapshot({name, created_at, counts}: SavedSnapshot): Snapshot {
  return {object: 'snapshot', name, created_at, counts}
}

/** The snapshot as one self-contained document, the one `import` takes back. */
export function exportSnapshot(snapshot: SnapshotRecord): SnapshotDocument {
  const {name, account_id, created_at, clock_offset_ms, records} = snapshot
  const exported = records as unknown as SnapshotDocument['records']
  return {tablepay_snapshot: SNAPSHOT_FORMAT, name, account: account_id, created_at, clock_offset_ms, records: exported}
}

/**
 * The record `import` stores for `document` in account `accountId`: the
 * document's ids are kept; a document of another account has its records
 * moved into this one (their account, and the keys that name it).
 */
export function importedSnapshot(document: SnapshotDocument, accountId: string): SnapshotRecord {
  const from = document.account
  const records = {} as SnapshotRecords
  for (const name of STORED_COLLECTIONS) {
    const list = (document.records[name] ?? []) as Record<string, unknown>[]
    records[name] = list.map((record) => moved(name, record, from, accountId)) as never
  }
  return {
    id: snapshotKey(accountId, document.name),
    name: document.name,
    created_at: document.created_at,
    clock_offset_ms: document.clock_offset_ms ?? 0,
    counts: snapshotCounts(records),
    records,
    ...(from === accountId ? {} : {imported_from: from}),
    account_id: accountId,
  }
}

/** Events and deliveries have `account_id` last, where a start finds it without parsing them (store/unread.ts). */
const ACCOUNT_LAST: ReadonlySet<SnapshotCollection> = new Set(['events', 'deliveries'])

function moved(name: SnapshotCollection, record: Record<string, unknown>, from: string, to: string) {
  const {account_id: _, ...rest} = record
  // elsewhere the field stays where the record had it
  const into: Record<string, unknown> = ACCOUNT_LAST.has(name) ? {...rest, account_id: to} : {...record, account_id: to}
  if (from === to) return into
  if (name === 'idempotency_keys' && typeof record.id === 'string' && record.id.startsWith(`${from}\u0000`))
    into.id = `${to}${record.id.slice(from.length)}`
  if (name === 'webhook_endpoints' && record.stored_as !== undefined)
    into.stored_as = chosenEndpointKey(to, String(record.id))
  return into
}

/** The id each record is stored under. */
export const storedId = (name: SnapshotCollection, record: Collections[SnapshotCollection]): string =>
  name === 'webhook_endpoints' ? endpointKey(record as Collections['webhook_endpoints']) : record.id

/**
 * A delivery as a restore writes it, marked with the restore: an attempt that was out when the
 * restore ran finds its delivery marked otherwise, and is not recorded (`abandonedBy`).
 */
export function restoredDelivery({account_id, ...delivery}: DeliveryRecord, restore: number): DeliveryRecord {
  // `account_id` stays last, where a start finds it without parsing the record (store/unread.ts)
  return {...delivery, restore, account_id}
}

/** True when a restore ran since the attempt claimed `claimed`: what the attempt came to is not recorded. */
export const abandonedBy = (claimed: DeliveryRecord | undefined, latest: DeliveryRecord): boolean =>
  claimed !== undefined && claimed.restore !== latest.restore

/** The settings record a restore of the account writes: its count of restores, and the mark live streams read. */
export const RESTORE_SETTING = 'restores:'
export const restoreSetting = (accountId: string): string => `${RESTORE_SETTING}${accountId}`

/** A unit's changes, as the live streams get them. */
type Changes = readonly (readonly [collection: string, id: string, record: unknown])[]

/** Whether `changes` are a restore's, which writes its mark: of the account given, or of any account. */
export function isRestore(changes: Changes, accountId?: string): boolean {
  const mark = accountId === undefined ? undefined : restoreSetting(accountId)
  return changes.some(
    ([collection, id, record]) =>
      collection === 'settings' &&
      // an account's deletion deletes its mark
      record != null &&
      (mark === undefined ? id.startsWith(RESTORE_SETTING) : id === mark),
  )
}
