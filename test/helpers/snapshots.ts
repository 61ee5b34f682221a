import type {SnapshotRecord} from '../../src/domain/records.js'
import {type SnapshotHead, snapshotRecord, STORED_COLLECTIONS} from '../../src/domain/snapshots.js'

/** What a save of `name` in `account` knows before it reads the account's records. */
export function snapshotHead(name: string, account: string, fields: Partial<SnapshotHead> = {}): SnapshotHead {
  return {
    id: `${account}/${name}`,
    name,
    created_at: '2026-01-01T00:00:00.000Z',
    clock_offset_ms: 0,
    account_id: account,
    ...fields,
  }
}

/** The snapshot of `name` in `account` holding `checks` and no other record, as a save makes it. */
export function snapshotOf(name: string, account: string, checks: readonly object[]): SnapshotRecord {
  const records = {...Object.fromEntries(STORED_COLLECTIONS.map((collection) => [collection, []])), checks}
  return snapshotRecord(snapshotHead(name, account), records as never)
}

/** A snapshot as a list shows it: without its records. */
export const withoutRecords = ({records: _, ...saved}: SnapshotRecord) => saved
