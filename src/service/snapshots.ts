import type {ApiError} from '../domain/errors.js'
import {STRING_TOO_LONG, TooLongToWrite} from '../domain/json-memory.js'
import {limitOf} from '../domain/limits.js'
import {settingRecord, type SnapshotRecord} from '../domain/records.js'
import {foreignKeys} from '../domain/snapshot-consistency.js'
import {repeatedRecord, type SnapshotDocument} from '../domain/snapshot-document.js'
import {
  importedSnapshot,
  restoredDelivery,
  restoreSetting,
  type SavedSnapshot,
  snapshotKey,
  STORED_COLLECTIONS,
  storedId,
} from '../domain/snapshots.js'
import {
  heldElsewhere,
  holdsTwice,
  keyedElsewhere,
  noSnapshot,
  tokenHeldElsewhere,
  tooLongToRead,
  tooLongToRestore,
  tooLongToSave,
  tooLongToStore,
  tooManyEndpoints,
} from '../domain/snapshot-errors.js'
import {CLOCK_SETTING} from '../webhooks/clock.js'
import {actingAccount} from './accounts.js'
import type {ServiceContext} from './context.js'
import type {Outbox, UnitReads} from './outbox.js'
import type {Reader, UnitOfWork} from './storage.js'

/** What a save and a restore read: every record of the account they hold, deliveries and endpoints included. */
const ACCOUNT: UnitReads = {reads: [...STORED_COLLECTIONS, 'snapshots', 'settings']}

/**
 * Throws when a record of `snapshot` is stored under an id another account's record has, or a check of it has
 * another account's check's guest token: an import keeps its ids and tokens, and a snapshot saved after
 * restoring one holds them too. One read per collection, and one of the tokens.
 */
async function refuseHeldElsewhere(tx: UnitOfWork, accountId: string, snapshot: SnapshotRecord): Promise<void> {
  for (const collection of STORED_COLLECTIONS) {
    const ids = snapshot.records[collection].map((record) => storedId(collection, record))
    const [held] = await tx.heldElsewhere(collection, ids, accountId)
    if (held) throw heldElsewhere(snapshot.name, collection, held.id, held.account_id)
  }
  // a check's guest token is the server's: its table link opens that check, whichever account's it is
  const tokens = snapshot.records.checks.map((check) => check.guest_token)
  const [token] = await tx.guestTokensElsewhere(tokens, accountId)
  if (token) throw tokenHeldElsewhere(snapshot.name, token.id)
}

/** The account's snapshot `name` whole, read by `reader`: a 404 when it has none, a 413 when it cannot be read back. */
async function readSnapshot(reader: Reader, accountId: string, name: string): Promise<SnapshotRecord> {
  let snapshot: SnapshotRecord | undefined
  try {
    snapshot = await reader.get('snapshots', snapshotKey(accountId, name))
  } catch (error) {
    throw (error as {code?: unknown}).code === STRING_TOO_LONG ? tooLongToRead(name) : error
  }
  if (!snapshot) throw noSnapshot(name)
  return snapshot
}

/**
 * Throws `refusal()` for a record longer than a store writes (TooLongToWrite), or V8's own words when a text
 * passed its longest string (a snapshot's JSON, a journal line of a restore): either store's unit then wrote
 * nothing. Any other error as it is.
 */
const whenTooLong =
  (refusal: () => ApiError) =>
  (error: unknown): never => {
    const tooLong =
      error instanceof TooLongToWrite || (error instanceof RangeError && error.message === 'Invalid string length')
    throw tooLong ? refusal() : error
  }

/**
 * Saved states of an account (docs/snapshots.md). A snapshot is one
 * record holding the account's records, so a save is one unit of work and
 * a restore another: each is one journal entry or one transaction, and a
 * crash leaves the state before or after it, never a mix.
 */
export class Snapshots {
  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
  ) {}

  /**
   * Saves the account's records and the scheduler clock's offset as `name`, replacing a snapshot of that name.
   *
   * @example
   * const snapshot = await service.snapshots.save('acct_demo', 'lunch-rush')
   */
  save(accountId: string, name: string): Promise<SavedSnapshot> {
    const unit = this.outbox.unitFannedOut({...ACCOUNT, account: accountId}, async (tx) => {
      // a scratch account deleted while the request ran keeps no snapshot
      await actingAccount(tx, accountId)
      return tx.saveSnapshot({
        id: snapshotKey(accountId, name),
        name,
        created_at: this.context.now(),
        clock_offset_ms: (await tx.get('settings', CLOCK_SETTING))?.value ?? 0,
        account_id: accountId,
      })
    })
    return unit.catch(whenTooLong(() => tooLongToSave(name)))
  }

  /** The account's snapshots, oldest first, without their records. */
  list(accountId: string): Promise<SavedSnapshot[]> {
    return this.context.storage.snapshots(accountId)
  }

  /** The account's snapshot `name` without its records, as `list` reads them, or a 404. */
  async saved(accountId: string, name: string): Promise<SavedSnapshot> {
    const snapshot = (await this.list(accountId)).find((saved) => saved.name === name)
    if (!snapshot) throw noSnapshot(name)
    return snapshot
  }

  /** The account's snapshot `name` whole, or a 404. */
  get(accountId: string, name: string): Promise<SnapshotRecord> {
    return readSnapshot(this.context.storage, accountId, name)
  }

  /** Deletes the account's snapshot `name`, or answers a 404. */
  remove(accountId: string, name: string): Promise<void> {
    return this.outbox.unit({reads: ['snapshots']}, async (tx) => {
      const id = snapshotKey(accountId, name)
      if (!(await tx.has('snapshots', id))) throw noSnapshot(name)
      tx.delete('snapshots', id)
    })
  }

  /** Stores an exported snapshot in the account, under the document's name (replacing one of that name). */
  import(accountId: string, document: SnapshotDocument): Promise<SnapshotRecord> {
    const snapshot = importedSnapshot(document, accountId)
    this.#refuseOverLimit(snapshot)
    const unit = this.outbox.unit({reads: ['snapshots'], account: accountId}, async (tx) => {
      await actingAccount(tx, accountId)
      tx.put('snapshots', snapshot.id, snapshot)
      return snapshot
    })
    return unit.catch(whenTooLong(() => tooLongToStore(document.name)))
  }

  /** A snapshot restored makes the account's endpoints what it holds: no more than the account may have. */
  #refuseOverLimit({name, records}: SnapshotRecord): void {
    const limit = limitOf(this.context.limits, 'webhook_endpoints')
    if (records.webhook_endpoints.length > limit) throw tooManyEndpoints(name, records.webhook_endpoints.length, limit)
  }

  /**
   * Makes the account exactly what snapshot `name` saved, in one unit of
   * work: every record of the account in a snapshot's collections deleted,
   * the saved ones put back, the clock's offset set. Its deliveries carry the
   * restore's number, by which an attempt out meanwhile is abandoned; the
   * account's restore count is written first, the mark the live streams
   * answer with `reset`. The dispatcher learns the rest from the changes.
   */
  restore(accountId: string, name: string): Promise<SnapshotRecord> {
    const unit = this.outbox.unit(ACCOUNT, async (tx) => {
      // no record of the account made meanwhile outlives the restore
      await tx.lockAccount(accountId)
      const snapshot = await readSnapshot(tx, accountId, name)
      const repeated = repeatedRecord(snapshot)
      if (repeated) throw holdsTwice(name, repeated)
      const [foreign] = foreignKeys(accountId, snapshot.records)
      if (foreign) throw keyedElsewhere(name, foreign)
      this.#refuseOverLimit(snapshot)
      // none may take a record another account holds here (an export keeps its ids)
      await refuseHeldElsewhere(tx, accountId, snapshot)
      const mark = restoreSetting(accountId)
      const restore = ((await tx.get('settings', mark))?.value ?? 0) + 1
      tx.put('settings', mark, settingRecord(mark, restore))
      for (const collection of STORED_COLLECTIONS) await tx.deleteAll(collection, accountId)
      for (const collection of STORED_COLLECTIONS) {
        for (const record of snapshot.records[collection]) {
          const stored = collection === 'deliveries' ? restoredDelivery(record as never, restore) : record
          tx.put(collection, storedId(collection, record), stored as never)
        }
      }
      tx.put('settings', CLOCK_SETTING, settingRecord(CLOCK_SETTING, snapshot.clock_offset_ms))
      return snapshot
    })
    return unit.catch(whenTooLong(() => tooLongToRestore(name)))
  }
}
