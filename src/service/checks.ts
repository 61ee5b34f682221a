import {applyPush, type PushOutcome} from '../domain/push.js'
import type {CheckPush} from '../domain/schemas.js'
import type {ServiceContext} from './context.js'
import type {Outbox} from './outbox.js'

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
   */
  push(accountId: string, externalId: string, body: CheckPush): Promise<PushOutcome> {
    const {now, baseUrl} = this.context
    return this.outbox.commit(async (tx) => {
      const existing = await tx.checkByExternalId(accountId, externalId)
      const locations = await tx.list('locations', accountId)
      const outcome = applyPush({accountId, externalId, body, locations, existing, now: now(), baseUrl})
      if (outcome.check !== existing) tx.put('checks', outcome.check.id, outcome.check)
      await this.outbox.publish(tx, outcome.events)
      return outcome
    })
  }
}
