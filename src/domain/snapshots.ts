import * as z from 'zod'
import {chosenEndpointKey, endpointKey} from './endpoints.js'
import type {Collections, DeliveryRecord, SnapshotRecord} from './records.js'
import type {SnapshotDocument} from './snapshot-document.js'

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
type Changes = readonly (readonly [collection: string, id: string, record: unknown, ...rest: unknown[]])[]

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
