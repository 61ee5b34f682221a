import {applyPush, type PushOutcome, pushReadsLocations} from '../domain/push.js'
import type {CheckPush} from '../domain/schemas.js'
import type {ServiceContext} from './context.js'
import type {Outbox} from './outbox.js'
import type {PushNotes} from './request-log.js'

/** Checks as the restaurant's POS pushes them. */
export class Checks {
  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
  ) {}

  /**
   * Creates or updates the check the caller knows as `externalId` with its
   * events, in one unit of work; a stale or unchanged push writes nothing.
   *
   * @example
   * const {result, check} = await service.checks.push('acct_demo', 't12', body)
   *
   * `notes`, when the request is logged, learns the check and both its versions (docs/api.md, "The request log").
   */
  push(accountId: string, externalId: string, body: CheckPush, notes?: PushNotes): Promise<PushOutcome> {
    const {now, baseUrl} = this.context
    return this.outbox.commit(async (tx) => {
      const existing = await tx.checkByExternalId(accountId, externalId)
      if (notes && existing) notes.check_id = existing.id
      // a change to a check that keeps its location needs no locations: one read less (docs/postgres.md)
      const locations = pushReadsLocations(body, existing) ? await tx.list('locations', accountId) : undefined
      const outcome = applyPush({accountId, externalId, body, locations, existing, now: now(), baseUrl})
      if (outcome.check !== existing) tx.put('checks', outcome.check.id, outcome.check)
      await this.outbox.publish(tx, outcome.events)
      if (notes)
        Object.assign(notes, {
          check_id: outcome.check.id,
          push_result: outcome.result,
          previous: existing,
          next: outcome.check,
        })
      return outcome
    })
  }
}
