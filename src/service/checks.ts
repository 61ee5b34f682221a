import {applyPush, type PushOutcome, pushReadsLocations} from '../domain/push.js'
import type {CheckRecord} from '../domain/records.js'
import type {CheckPush} from '../domain/schemas.js'
import {actingAccount} from './accounts.js'
import type {ServiceContext} from './context.js'
import type {Outbox, UnitReads} from './outbox.js'
import {keptReplay, rememberReplay} from './push-replays.js'
import type {PushNotes} from './request-log.js'

/** A push as it arrived: its text, and how to read the body from it (only when the text is not a known replay). */
export interface PushText {
  text: string
  parse(text: string): CheckPush
}

/** Checks as the restaurant's POS pushes them. */
export class Checks {
  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
  ) {}

  /**
   * Creates or updates the check the caller knows as `externalId` with its
   * events, in one unit of work; a stale or unchanged push writes nothing.
   * Given as text, a push that repeats the replay that left the check as it
   * is decides `unchanged` without being parsed (service/push-replays.ts).
   *
   * @example
   * const {result, check} = await service.checks.push('acct_demo', 't12', body)
   *
   * `notes`, when the request is logged, learns the check and both its versions (docs/api.md, "The request log").
   */
  async push(
    accountId: string,
    externalId: string,
    pushed: CheckPush | PushText,
    notes?: PushNotes,
  ): Promise<PushOutcome> {
    const {now, baseUrl} = this.context
    const text = 'text' in pushed ? pushed : undefined
    let replayed: string | undefined
    const outcome = await this.outbox.unit(PUSH_READS, async (tx) => {
      const existing = await tx.checkByExternalId(accountId, externalId)
      replayed = text && keptReplay(existing, text.text)
      if (replayed && existing) {
        if (notes) notes.request_text = replayed
        return noted(notes, existing, unchanged(existing))
      }
      const body = text ? text.parse(text.text) : (pushed as CheckPush)
      if (notes && existing) notes.check_id = existing.id
      // a change to a check that keeps its location needs no locations: one read less (docs/postgres.md)
      const locations = pushReadsLocations(body, existing) ? await tx.list('locations', accountId) : undefined
      // every account has a location: none, and its account went while the request ran (a scratch account's)
      if (locations?.length === 0) await actingAccount(tx, accountId)
      const outcome = applyPush({accountId, externalId, body, locations, existing, now: now(), baseUrl})
      if (outcome.check !== existing) tx.put('checks', outcome.check.id, outcome.check)
      await this.outbox.publish(tx, outcome.events)
      return noted(notes, existing, outcome)
    })
    // a replay keeps the text already kept: the one that arrived dies young
    if (text && !replayed && outcome.result === 'unchanged') rememberReplay(outcome.check, text.text)
    return outcome
  }
}

/** What a push reads (its events' endpoints are `publish`'s): nothing a fan-out writes, so it waits for none. */
const PUSH_READS: UnitReads = {reads: ['checks', 'locations']}

const unchanged = (check: CheckRecord): PushOutcome => ({result: 'unchanged', check, events: []})

/** `outcome`, once the request log's `notes` know its check and both its versions. */
function noted(notes: PushNotes | undefined, previous: CheckRecord | undefined, outcome: PushOutcome): PushOutcome {
  if (notes) {
    notes.check_id = outcome.check.id
    notes.push_result = outcome.result
    notes.previous = previous
    notes.next = outcome.check
  }
  return outcome
}
