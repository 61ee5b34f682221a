import {describe, expect, it} from 'vitest'
import {applyClaim} from '../../src/domain/claims.js'
import {applyFeedback} from '../../src/domain/feedback.js'
import {becameFullyPaid} from '../../src/domain/money.js'
import {applyPayment, applyRefund, renderPayment} from '../../src/domain/payments.js'
import {applyPush} from '../../src/domain/push.js'
import type {CheckRecord, LocationRecord} from '../../src/domain/records.js'
import type {CheckPush} from '../../src/domain/schemas.js'
import {checkWith} from '../helpers/checks.js'
import {rejects} from '../helpers/rejects.js'

const NOW = '2026-01-01T12:00:00.000Z'
const location: LocationRecord = {
  id: 'loc_1',
  object: 'location',
  name: 'Main',
  timezone: 'UTC',
  currency: 'EUR',
  created_at: NOW,
  account_id: 'acct_a',
}

const push = (body: CheckPush, existing?: CheckRecord) =>
  applyPush({
    accountId: 'acct_a',
    externalId: 't1',
    body,
    locations: [location],
    existing,
    now: NOW,
    baseUrl: 'http://x',
  })

/** A check of 1,100 due: one item of 1,000 plus 100 tax. */
const open = () => push(checkWith([['a', 1, 1000]])).check

const pay = (check: CheckRecord, amount_cents: number, tip_cents?: number) =>
  applyPayment(check, {amount_cents, tip_cents}, NOW, 'http://x')

describe('applyPayment', () => {
  it('paying more than is due is refused with amount_exceeds_balance', () => {
    const check = open()
    const error = rejects(() => pay(check, 1101), 'amount_exceeds_balance')
    expect(error.details).toEqual([{path: 'amount_cents', message: 'must be at most 1100, the amount due'}])
  })

  it('partial payments add up, and only the one reaching the total emits check.fully_paid', () => {
    const first = pay(open(), 600)
    expect(first.check.amount_paid_cents).toBe(600)
    expect(first.events.map((e) => e.type)).toEqual(['payment.succeeded', 'check.updated'])
    expect(first.events[1]!.data).toMatchObject({
      amount_paid_cents: 600,
      amount_due_cents: 500,
      payment_status: 'partially_paid',
    })
    const second = pay(first.check, 500)
    expect(second.check.amount_paid_cents).toBe(1100)
    expect(second.events.map((e) => e.type)).toEqual(['payment.succeeded', 'check.updated', 'check.fully_paid'])
    expect(second.events[2]!.data).toMatchObject({amount_due_cents: 0, payment_status: 'paid'})
    rejects(() => pay(second.check, 1), 'amount_exceeds_balance')
  })

  it('tips do not count toward the total or the amount paid', () => {
    const outcome = pay(open(), 1100, 250)
    expect(outcome.check.amount_paid_cents).toBe(1100)
    expect(outcome.check.totals.total_cents).toBe(1100)
    expect(outcome.payment).toMatchObject({amount_cents: 1100, tip_cents: 250})
  })

  it('a check that is not open cannot be paid', () => {
    rejects(() => pay(push(checkWith([['a', 1, 1000]], {status: 'closed'})).check, 100), 'check_not_open')
  })

  it('claim_id must name a claim of this check', () => {
    const check = open()
    const claim = applyClaim(check, {items: [{external_id: 'a', quantity: 1}]}, NOW, 'http://x')
    const ok = applyPayment(claim.check, {amount_cents: 1100, claim_id: claim.claim.id}, NOW, 'http://x', claim.claim)
    expect(ok.payment.claim_id).toBe(claim.claim.id)
    const elsewhere = {...claim.claim, check_id: 'chk_other'}
    rejects(
      () => applyPayment(claim.check, {amount_cents: 100, claim_id: elsewhere.id}, NOW, 'http://x', elsewhere),
      'validation_failed',
    )
    rejects(
      () => applyPayment(claim.check, {amount_cents: 100, claim_id: 'clm_missing'}, NOW, 'http://x'),
      'validation_failed',
    )
  })

  it('simulate "decline" answers payment_declined, after the other rules', () => {
    const check = open()
    rejects(() => applyPayment(check, {amount_cents: 100, simulate: 'decline'}, NOW, 'http://x'), 'payment_declined')
    rejects(
      () => applyPayment(check, {amount_cents: 5000, simulate: 'decline'}, NOW, 'http://x'),
      'amount_exceeds_balance',
    )
  })
})

describe('applyRefund', () => {
  it('a partial refund brings a paid check back to partially_paid, and a new payment fires check.fully_paid again', () => {
    const paid = pay(open(), 1100)
    const refunded = applyRefund(paid.check, paid.payment, {amount_cents: 300}, NOW, 'http://x')
    expect(refunded.payment).toMatchObject({
      amount_refunded_cents: 300,
      status: 'partially_refunded',
      refunds: [{amount_cents: 300, created_at: NOW}],
    })
    expect(refunded.check.amount_paid_cents).toBe(800)
    expect(refunded.events.map((e) => e.type)).toEqual(['payment.refunded', 'check.updated'])
    expect(refunded.events[1]!.data).toMatchObject({payment_status: 'partially_paid', amount_due_cents: 300})
    const again = pay(refunded.check, 300)
    expect(again.events.map((e) => e.type)).toEqual(['payment.succeeded', 'check.updated', 'check.fully_paid'])
  })

  it('refunds come off the bill before the tip; a full refund returns both', () => {
    const paid = pay(open(), 1000, 200)
    const full = applyRefund(paid.check, paid.payment, {}, NOW, 'http://x')
    expect(full.payment).toMatchObject({amount_refunded_cents: 1200, status: 'refunded'})
    expect(full.check.amount_paid_cents).toBe(0)
    const billOnly = applyRefund(paid.check, paid.payment, {amount_cents: 1000}, NOW, 'http://x')
    const tipOnly = applyRefund(billOnly.check, billOnly.payment, {amount_cents: 200}, NOW, 'http://x')
    expect(tipOnly.check).toBe(billOnly.check)
    expect(tipOnly.events.map((e) => e.type)).toEqual(['payment.refunded'])
  })

  it('refunding more than is left is refused, also on a fully refunded payment', () => {
    const paid = pay(open(), 500, 100)
    rejects(() => applyRefund(paid.check, paid.payment, {amount_cents: 601}, NOW, 'http://x'), 'amount_exceeds_balance')
    const full = applyRefund(paid.check, paid.payment, {}, NOW, 'http://x')
    rejects(() => applyRefund(full.check, full.payment, {}, NOW, 'http://x'), 'amount_exceeds_balance')
  })

  it('is refused once the check is closed (check_not_open)', () => {
    const paid = pay(open(), 500)
    const closed = {...paid.check, status: 'closed' as const}
    rejects(() => applyRefund(closed, paid.payment, {}, NOW, 'http://x'), 'check_not_open')
  })

  it('event data is the rendered payment', () => {
    const paid = pay(open(), 500)
    expect(paid.events[0]!.data).toEqual(renderPayment(paid.payment))
  })
})

describe('the paid rule of pushes', () => {
  it('lowering the total below what was paid, or voiding a paid check, is conflict_with_paid_items', () => {
    const paid = pay(open(), 800).check
    const below = rejects(() => push(checkWith([['a', 1, 700]]), paid), 'conflict_with_paid_items')
    expect(below.details).toEqual([
      {path: 'totals.total_cents', message: 'guests have paid 800; the total cannot go below it'},
    ])
    const voided = rejects(
      () => push(checkWith([['a', 1, 1000]], {status: 'voided'}), paid),
      'conflict_with_paid_items',
    )
    expect(voided.details).toEqual([
      {path: 'status', message: 'guests have paid 800; refund it before voiding the check'},
    ])
    // a closed check's payments are refunded once it is open again (check_not_open otherwise)
    const closed = {...paid, status: 'closed' as const}
    expect(
      rejects(() => push(checkWith([['a', 1, 1000]], {status: 'voided'}), closed), 'conflict_with_paid_items').details,
    ).toEqual([
      {
        path: 'status',
        message: 'guests have paid 800; push the check open again and refund it before voiding the check',
      },
    ])
  })

  it('a push lowering the total to exactly what was paid fires check.fully_paid', () => {
    const paid = pay(open(), 880).check
    const lowered = push(checkWith([['a', 1, 800]]), paid)
    expect(lowered.check.amount_paid_cents).toBe(880)
    expect(lowered.events.map((e) => e.type)).toEqual(['check.updated', 'check.fully_paid'])
    expect(lowered.events[1]!.data).toMatchObject({payment_status: 'paid', amount_due_cents: 0})
  })

  it('becameFullyPaid is true only on the transition', () => {
    const totals = {subtotal_cents: 1000, tax_cents: 0, total_cents: 1000}
    expect(becameFullyPaid({totals, amount_paid_cents: 500}, {totals, amount_paid_cents: 1000})).toBe(true)
    expect(becameFullyPaid({totals, amount_paid_cents: 1000}, {totals, amount_paid_cents: 1000})).toBe(false)
    expect(becameFullyPaid({totals, amount_paid_cents: 0}, {totals, amount_paid_cents: 999})).toBe(false)
  })
})

describe('applyFeedback', () => {
  it('emits feedback.received with the rendered feedback', () => {
    const check = open()
    const {feedback, events} = applyFeedback(check, {rating: 4, comment: 'Lovely'}, NOW)
    expect(feedback).toMatchObject({check_id: check.id, rating: 4, comment: 'Lovely'})
    expect(events.map((e) => e.type)).toEqual(['feedback.received'])
    expect(events[0]!.data).toEqual({
      id: feedback.id,
      object: 'feedback',
      check_id: check.id,
      rating: 4,
      comment: 'Lovely',
      created_at: NOW,
    })
  })

  it('is refused on a closed or voided check (check_not_open)', () => {
    for (const status of ['closed', 'voided'] as const) {
      const check = push(checkWith([['a', 1, 1000]], {status})).check
      rejects(() => applyFeedback(check, {rating: 4}, NOW), 'check_not_open')
    }
  })
})
