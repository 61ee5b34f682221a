import {ApiError, invalidField} from './errors.js'
import type {Contradiction} from './snapshot-consistency.js'

// The refusals of snapshots' saves, restores and imports (docs/snapshots.md).

/** A restore that would take records another account of this server holds under the same ids. */
export const heldElsewhere = (name: string, collection: string, id: string, holder: string): ApiError =>
  invalidField(
    'name',
    `snapshot ${name} holds ${collection} ${id}, which is account ${holder}'s on this server (an export keeps its ids): export it, and import it into ${holder}, or into a server where no other account holds ${id}`,
  )

/**
 * A restore that would give a check the guest token of another account's check. The holder is not named: a
 * table link is the guest's, not the caller's to learn of.
 */
export const tokenHeldElsewhere = (name: string, token: string): ApiError =>
  invalidField(
    'name',
    `snapshot ${name} holds a check with guest token ${token}, which another account's check has on this server (an export keeps its tokens): export it, and import it again with another token for that check, or into a server where no other check has ${token}`,
  )

/** A restore of a snapshot holding a record twice (`repeatedRecord`): only an older import can. */
export const holdsTwice = (name: string, repeated: string): ApiError =>
  invalidField(
    'name',
    `snapshot ${name} holds ${repeated} twice, which no account can hold: export it, keep one of the two, and import it again`,
  )

/** A restore of a snapshot holding a record under another account's key (`foreignKeys`): only an older import can. */
export const keyedElsewhere = (name: string, {path: [collection, index, field], message}: Contradiction): ApiError =>
  invalidField(
    'name',
    `snapshot ${name} holds ${String(collection)} ${String(index)} whose ${String(field)} ${message}: export it, correct that record, and import it again`,
  )

/** A snapshot holding more webhook endpoints than an account may have (docs/api.md, "Limits"). */
export const tooManyEndpoints = (name: string, held: number, limit: number): ApiError =>
  new ApiError(
    'limit_reached',
    `Snapshot ${name} holds more webhook endpoints (${held}) than an account may have (${limit}). Import a document that holds at most ${limit}.`,
    [{path: 'webhook_endpoints', message: `at most ${limit} per account`}],
  )

/**
 * An import whose snapshot, written as JSON, would pass the longest string V8 makes: weighed before it was
 * parsed (json-memory.ts), a document of 256 MiB may still grow so, its records moved into the account.
 */
export const tooLongToStore = (name: string): ApiError =>
  new ApiError(
    'payload_too_large',
    `Snapshot ${name} is not stored: written as JSON it would be longer than the longest text the server writes (about 500 MiB). Import a document of fewer records.`,
  )

/**
 * A save whose snapshot, written as JSON, would be longer than the server can read back: past 500 MiB on
 * PostgreSQL (postgres/snapshots.ts), past the longest string V8 makes on a data dir.
 */
export const tooLongToSave = (name: string): ApiError =>
  new ApiError(
    'payload_too_large',
    `Snapshot ${name} is not saved: written as JSON the account's records would be longer than the longest text the server writes (about 500 MiB). Delete checks or events, or save a smaller account.`,
  )

/**
 * A restore whose one change, every record of the account deleted and the snapshot's put back, would be
 * longer than the server writes as one: on a data dir, past the longest string V8 makes, which a snapshot of
 * many records near 500 MiB can reach with the frame each record is written in.
 */
export const tooLongToRestore = (name: string): ApiError =>
  new ApiError(
    'payload_too_large',
    `Snapshot ${name} is not restored: the account's records deleted and the snapshot's put back, written as one change, would be longer than the longest text the server writes (about 512 MiB). Save a snapshot of fewer records.`,
  )

/** A snapshot an earlier version saved past the bytes Node reads back as one string. */
export const tooLongToRead = (name: string): ApiError =>
  new ApiError(
    'payload_too_large',
    `Snapshot ${name} cannot be read: an earlier version saved it longer than the longest text the server reads (about 512 MiB). Delete it (DELETE /v1/sim/snapshots/${name}).`,
  )

/** A snapshot name the account does not have. */
export const noSnapshot = (name: string): ApiError =>
  new ApiError('not_found', `No snapshot ${name} in this account; list them with GET /v1/sim/snapshots.`)
