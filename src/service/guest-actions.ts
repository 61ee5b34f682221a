import {applyClaim, renderClaim} from '../domain/claims.js'
import {ApiError} from '../domain/errors.js'
import {applyFeedback, renderFeedback} from '../domain/feedback.js'
import {applyPayment, applyRefund, renderPayment} from '../domain/payments.js'
import type {CollectionName, Collections} from '../domain/records.js'
import {DEFAULT_RETENTION, isExpiredKey, keyExpiry} from '../domain/retention.js'
import type {Claim, ClaimInput, Feedback, FeedbackInput, Payment, PaymentInput, RefundInput} from '../domain/schemas.js'
import {actingAccount} from './accounts.js'
import type {ServiceContext} from './context.js'
import {type Answer, type IdempotentRequest, type KeyClock, once} from './idempotency.js'
import type {Outbox, UnitReads} from './outbox.js'
import type {Reader, UnitOfWork} from './storage.js'

/**
 * The record as it is now. The caller found it before the body was read, and
 * another request may have changed it (or a reset removed it) since.
 */
async function current<C extends CollectionName>(
  tx: Reader,
  collection: C,
  id: string,
  noun: string,
): Promise<Collections[C]> {
  const record = await tx.get(collection, id)
  if (!record) throw new ApiError('not_found', `No ${noun} ${id} in this account.`)
  return record
}

/** What a guest action reads (its events' endpoints are `publish`'s): nothing a fan-out writes, so it waits for none. */
const GUEST_READS: UnitReads = {reads: ['idempotency_keys', 'checks', 'claims', 'payments']}

/**
 * What guests do, from the simulator's /v1/sim routes or the table page:
 * each decides on the current state and writes the record, the check and
 * their events in one unit of work, at most once per `Idempotency-Key`.
 */
export class GuestActions {
  readonly #keys: KeyClock

  constructor(
    readonly context: ServiceContext,
    readonly outbox: Outbox,
  ) {
    const {now, clock, retention = DEFAULT_RETENTION} = context
    this.#keys = {
      now,
      expiresAt: () => keyExpiry(clock.now(), retention),
      forgotten: (record) => isExpiredKey(record, clock.now(), Date.parse(now()), retention),
    }
  }

  /** Runs `act` as one unit of work, at most once per `Idempotency-Key` of the account. */
  #once<T>(
    accountId: string,
    request: IdempotentRequest | undefined,
    act: (tx: UnitOfWork) => Promise<{status: number; body: T}>,
  ) {
    const reads = {...GUEST_READS, account: accountId}
    return this.outbox.unit(reads, async (tx) => {
      try {
        return await once(tx, accountId, request, this.#keys, () => act(tx))
      } catch (error) {
        // what it acts on went with its account, deleted while the request ran: refused as its key now is
        if (error instanceof ApiError && error.code === 'not_found') await actingAccount(tx, accountId)
        throw error
      }
    })
  }

  /**
   * A guest claims units of the check's items: 201 and the claim.
   *
   * @example
   * const {status, body} = await service.guests.claim(check, {items: [{item_id: 'burger', quantity: 1}]})
   */
  claim(
    check: {id: string; account_id: string},
    input: ClaimInput,
    request?: IdempotentRequest,
  ): Promise<Answer<Claim>> {
    const {now, baseUrl} = this.context
    return this.#once(check.account_id, request, async (tx) => {
      const outcome = applyClaim(await current(tx, 'checks', check.id, 'check'), input, now(), baseUrl)
      tx.put('checks', outcome.check.id, outcome.check)
      tx.put('claims', outcome.claim.id, outcome.claim)
      await this.outbox.publish(tx, outcome.events)
      return {status: 201, body: renderClaim(outcome.claim)}
    })
  }

  /** A guest pays (part of) what is due, plus an optional tip: 201 and the payment. */
  pay(
    check: {id: string; account_id: string},
    input: PaymentInput,
    request?: IdempotentRequest,
  ): Promise<Answer<Payment>> {
    const {now, baseUrl} = this.context
    return this.#once(check.account_id, request, async (tx) => {
      // the check first: locking it serialises every claim and payment of the check (docs/postgres.md)
      const latest = await current(tx, 'checks', check.id, 'check')
      const claimed = input.claim_id === undefined ? undefined : await tx.get('claims', input.claim_id)
      const outcome = applyPayment(latest, input, now(), baseUrl, claimed)
      tx.put('checks', outcome.check.id, outcome.check)
      tx.put('payments', outcome.payment.id, outcome.payment)
      await this.outbox.publish(tx, outcome.events)
      return {status: 201, body: renderPayment(outcome.payment)}
    })
  }

  /** Refunds all or part of a payment: 200 and the payment, which now lists the refund. */
  refund(
    payment: {id: string; account_id: string},
    input: RefundInput,
    request?: IdempotentRequest,
  ): Promise<Answer<Payment>> {
    const {now, baseUrl} = this.context
    return this.#once(payment.account_id, request, async (tx) => {
      const paid = await current(tx, 'payments', payment.id, 'payment')
      const check = await current(tx, 'checks', paid.check_id, 'check')
      const outcome = applyRefund(check, paid, input, now(), baseUrl)
      if (outcome.check !== check) tx.put('checks', outcome.check.id, outcome.check)
      tx.put('payments', outcome.payment.id, outcome.payment)
      await this.outbox.publish(tx, outcome.events)
      return {status: 200, body: renderPayment(outcome.payment)}
    })
  }

  /** A guest rates the visit on an open check: 201 and the feedback. */
  leaveFeedback(
    check: {id: string; account_id: string},
    input: FeedbackInput,
    request?: IdempotentRequest,
  ): Promise<Answer<Feedback>> {
    const {now} = this.context
    return this.#once(check.account_id, request, async (tx) => {
      const outcome = applyFeedback(await current(tx, 'checks', check.id, 'check'), input, now())
      tx.put('feedback', outcome.feedback.id, outcome.feedback)
      await this.outbox.publish(tx, outcome.events)
      return {status: 201, body: renderFeedback(outcome.feedback)}
    })
  }
}
