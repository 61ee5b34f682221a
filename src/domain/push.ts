import {assertNoClaimConflict} from './claims.js'
import {checkItem, type PushedItem, sameItem} from './items.js'
import {sameInOrder} from './arrays.js'
import {renderCheck} from './check.js'
import {ApiError, invalidField} from './errors.js'
import {checkChangeEvents} from './events.js'
import {newId, randomToken} from './ids.js'
import {sameTotals} from './money.js'
import type {CheckRecord, EventRecord, LocationRecord} from './records.js'
import type {Check, CheckItem, CheckPush} from './schemas.js'

export const PUSH_RESULTS = ['created', 'updated', 'unchanged', 'stale'] as const
export type PushResult = (typeof PUSH_RESULTS)[number]

export interface PushInput {
  accountId: string
  externalId: string
  body: CheckPush
  /**
   * The account's locations, to resolve and check `location_id`; may be left out when
   * `pushReadsLocations` says the push does not need them.
   */
  locations?: readonly LocationRecord[]
  existing?: CheckRecord
  now: string
  /** The server's URL, for the check's `guest_url` in the answer and the event data. */
  baseUrl: string
}

export interface PushOutcome {
  result: PushResult
  check: CheckRecord
  /**
   * The check as its GET returns it now, when the push changed it (`created`, `updated`): the data of
   * its events and the answer. A replay or a stale push renders nothing: its answer is the stored version's.
   */
  resource?: Check
  /** Events of the change, `data` rendered as the GET returns it now; none for `unchanged` and `stale`. */
  events: EventRecord[]
}

/**
 * Whether a push needs the account's locations: not when it updates a check and keeps its location, which
 * exists as long as the check does (a location goes only with its account, the account's checks with it).
 * So the busiest push, a change to an open check, reads no locations.
 *
 * @example
 * const locations = pushReadsLocations(body, existing) ? await tx.list('locations', accountId) : undefined
 */
export function pushReadsLocations(body: CheckPush, existing: CheckRecord | undefined): boolean {
  return existing === undefined || (body.location_id !== undefined && body.location_id !== existing.location_id)
}

function resolveLocation({body, locations: given, existing}: PushInput): string {
  if (!given && pushReadsLocations(body, existing)) throw new Error("push: this push needs the account's locations")
  const locations = given ?? []
  if (body.location_id !== undefined) {
    if (body.location_id === existing?.location_id) return body.location_id
    if (!locations.some((l) => l.id === body.location_id)) {
      throw invalidField('location_id', `no location ${body.location_id} in this account; GET /v1/locations lists them`)
    }
    return body.location_id
  }
  if (existing) return existing.location_id
  if (locations.length === 1) return locations[0]!.id
  // a snapshot document restored without locations leaves the account none
  if (locations.length === 0)
    throw invalidField(
      'location_id',
      'this account has no locations: restore a snapshot that has some, or start the server with a --seed that gives it one',
    )
  const names = locations.map((l) => `${l.id} (${l.name})`).join(', ')
  throw invalidField('location_id', `required: this account has ${locations.length} locations: ${names}`)
}

function pushedItems(body: CheckPush): PushedItem[] {
  return body.items.map((i) => ({
    external_id: i.external_id,
    name: i.name,
    quantity: i.quantity,
    price_cents: i.price_cents,
    note: i.note ?? null,
  }))
}

interface PushedState {
  location_id: string
  table: {number: string}
  status: string
  items: PushedItem[]
  totals: CheckPush['totals']
}

/**
 * Whether two states agree on every part of a check the POS owns: equal JSON
 * whatever the key order of the request. Field by field rather than by
 * serialising both: this runs on every push.
 */
function samePushedState(a: PushedState, b: PushedState): boolean {
  return (
    a.location_id === b.location_id &&
    a.table.number === b.table.number &&
    a.status === b.status &&
    sameTotals(a.totals, b.totals) &&
    a.items.length === b.items.length &&
    a.items.every((item, i) => item.external_id === b.items[i]!.external_id && sameItem(item, b.items[i]!))
  )
}

/**
 * The push rules of docs/api.md ("The check push"), in order: validation (location), staleness and
 * replay by `version`, the claims rule, then apply. No I/O (it only draws new ids): the caller stores
 * the returned check and the events it implies.
 *
 * A push without `version` is ordered by arrival. A newer version with the
 * same content only advances the stored version (`unchanged`, no event).
 */
export function applyPush(input: PushInput): PushOutcome {
  const {result, check} = decide(input)
  if (result !== 'created' && result !== 'updated') return {result, check, events: []}
  const resource = renderCheck(check, input.baseUrl)
  // lowering the total to what guests paid makes the check paid, as a payment would
  return {result, check, resource, events: checkChangeEvents(input.existing, check, resource, input.now)}
}

function decide(input: PushInput): Pick<PushOutcome, 'result' | 'check'> {
  const {body, existing, now} = input
  const location_id = resolveLocation(input)
  const items = pushedItems(body)
  if (!existing) return {result: 'created', check: createCheck(input, location_id, items)}

  const version = body.version ?? existing.version
  const sameContent = samePushedState(
    {location_id, table: body.table, status: body.status, items, totals: body.totals},
    existing,
  )
  if (body.version !== undefined && existing.version !== null) {
    if (body.version < existing.version) return {result: 'stale', check: existing}
    if (body.version === existing.version && !sameContent) {
      throw new ApiError(
        'version_conflict',
        `Check ${input.externalId} already has version ${existing.version} with other content; send a higher version for a change.`,
        [{path: 'version', message: `version ${body.version} was already pushed with different content`}],
      )
    }
  }
  if (sameContent) {
    return {result: 'unchanged', check: version === existing.version ? existing : {...existing, version}}
  }
  assertNoClaimConflict(existing, body)
  // claims follow their item by external_id; most checks have none, and then there is nothing to carry over
  const claimed = existing.items.some((i) => i.claimed_quantity > 0)
    ? new Map(existing.items.map((i) => [i.external_id, i.claimed_quantity]))
    : undefined
  // what the push left as it was stays the existing record's own (records never change in place): the new
  // version, and the events that keep it, hold only what changed (docs/benchmarks.md, "Shared parts")
  const nextItems = items.map((item, i) => keptItem(existing.items[i], item, claimed?.get(item.external_id) ?? 0))
  const check: CheckRecord = {
    ...existing,
    location_id,
    table: existing.table.number === body.table.number ? existing.table : {number: body.table.number},
    status: body.status,
    version,
    items: sameInOrder(nextItems, existing.items) ? existing.items : nextItems,
    totals: sameTotals(existing.totals, body.totals) ? existing.totals : {...body.totals},
    updated_at: now,
  }
  return {result: 'updated', check}
}

/** `before` (the stored item at the same place) when the push left it as it was, else the pushed item as stored. */
function keptItem(before: CheckItem | undefined, item: PushedItem, claimed: number): CheckItem {
  const kept = before?.external_id === item.external_id && sameItem(before, item) && before.claimed_quantity === claimed
  return kept ? before : checkItem(item, claimed)
}

function createCheck(
  {accountId, externalId, body, now}: PushInput,
  location_id: string,
  items: PushedItem[],
): CheckRecord {
  return {
    id: newId('chk'),
    object: 'check',
    external_id: externalId,
    location_id,
    table: {number: body.table.number},
    status: body.status,
    version: body.version ?? null,
    items: items.map((i) => checkItem(i, 0)),
    totals: {...body.totals},
    amount_paid_cents: 0,
    created_at: now,
    updated_at: now,
    account_id: accountId,
    guest_token: `gt_${randomToken(32)}`,
  }
}
