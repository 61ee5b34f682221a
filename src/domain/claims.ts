import {ApiError, type ErrorDetail, invalidField} from './errors.js'
import {newId} from './ids.js'
import {checkItem} from './items.js'
import {roundQuantity} from './money.js'
import {guestsMayAct, renderCheck} from './check.js'
import {checkChangeEvents, newEvent} from './events.js'
import {paidConflicts} from './payments.js'
import type {CheckRecord, ClaimRecord, EventRecord} from './records.js'
import type {CheckPush, Claim, ClaimInput} from './schemas.js'

/**
 * The claims rule (docs/api.md, "The check push"): a push may not take away what guests have claimed. It may not
 * remove a claimed item, lower its price, lower its quantity below what is
 * claimed, or void a check while anything is claimed. Raising a price is fine.
 * Returns one detail per offending item; empty when the push is allowed.
 */
export function claimConflicts(check: CheckRecord, push: CheckPush): ErrorDetail[] {
  // built only once a claimed item turns up: most pushes are to checks nobody has claimed from
  let next: Map<string, CheckPush['items'][number]> | undefined
  const conflicts: ErrorDetail[] = []
  for (const item of check.items) {
    if (item.claimed_quantity === 0) continue
    next ??= new Map(push.items.map((pushed) => [pushed.external_id, pushed]))
    const incoming = next.get(item.external_id)
    const problem = !incoming
      ? 'is claimed by guests and cannot be removed'
      : incoming.price_cents < item.price_cents
        ? `is claimed by guests; its price cannot go below ${item.price_cents}`
        : incoming.quantity < item.claimed_quantity
          ? `is claimed by guests; its quantity cannot go below ${item.claimed_quantity}`
          : push.status === 'voided'
            ? 'is claimed by guests; the check cannot be voided'
            : undefined
    if (problem)
      conflicts.push({path: 'items', external_id: item.external_id, message: `item ${item.external_id} ${problem}`})
  }
  return conflicts
}

/**
 * Throws the 409 of the claims rule when the push takes away what guests claimed
 * (see `claimConflicts`) or paid (see `paidConflicts`).
 */
export function assertNoClaimConflict(check: CheckRecord, push: CheckPush): void {
  const conflicts = claimConflicts(check, push)
  const paid = paidConflicts(check, push)
  if (conflicts.length === 0 && paid.length === 0) return
  const ids = conflicts.map((c) => c.external_id).join(', ')
  const what = [
    ...(conflicts.length > 0 ? [`items guests have already claimed (${ids})`] : []),
    ...(paid.length > 0 ? [`the ${check.amount_paid_cents} guests have already paid`] : []),
  ].join(' and ')
  const keep = [
    ...(conflicts.length > 0 ? ['Keep claimed items, their price and claimed quantity'] : []),
    ...(paid.length > 0 ? ['Keep a total of at least what was paid, or refund first'] : []),
  ].join('. ')
  throw new ApiError('conflict_with_paid_items', `The push would take away ${what}; nothing was changed. ${keep}.`, [
    ...conflicts,
    ...paid,
  ])
}

export interface ClaimOutcome {
  check: CheckRecord
  claim: ClaimRecord
  /** `claim.created` and the `check.updated` it causes. */
  events: EventRecord[]
}

/** The public claim resource of a record: the fields the API defines, whatever else a record imported holds. */
export function renderClaim(record: ClaimRecord): Claim {
  return {
    id: record.id,
    object: record.object,
    check_id: record.check_id,
    items: record.items.map(({external_id, quantity}) => ({external_id, quantity})),
    created_at: record.created_at,
  }
}

/**
 * A guest claims units of items on an open check. All or nothing: if any unit
 * is no longer available the whole claim is refused.
 */
export function applyClaim(check: CheckRecord, input: ClaimInput, now: string, baseUrl: string): ClaimOutcome {
  guestsMayAct(check, 'claim items on')
  const wanted = new Map<string, number>()
  const onCheck = new Set(check.items.map((item) => item.external_id))
  input.items.forEach((line, i) => {
    if (wanted.has(line.external_id))
      throw invalidField(`items.${i}.external_id`, `duplicate external_id "${line.external_id}"`)
    if (!onCheck.has(line.external_id)) {
      throw invalidField(`items.${i}.external_id`, `no item "${line.external_id}" on check ${check.id}`)
    }
    wanted.set(line.external_id, line.quantity)
  })
  const unavailable: ErrorDetail[] = []
  const items = check.items.map((item) => {
    const quantity = wanted.get(item.external_id)
    if (quantity === undefined) return item
    const available = roundQuantity(item.quantity - item.claimed_quantity)
    if (quantity > available) {
      unavailable.push({
        path: 'items',
        external_id: item.external_id,
        message: `only ${available} of ${item.external_id} left to claim`,
      })
    }
    return checkItem(item, roundQuantity(item.claimed_quantity + quantity))
  })
  if (unavailable.length > 0) {
    throw new ApiError(
      'item_unavailable',
      `Not enough left to claim on check ${check.id}: ${unavailable.map((u) => u.message).join('; ')}.`,
      unavailable,
    )
  }
  const claim: ClaimRecord = {
    id: newId('clm'),
    object: 'claim',
    check_id: check.id,
    items: input.items.map((line) => ({external_id: line.external_id, quantity: line.quantity})),
    created_at: now,
    account_id: check.account_id,
  }
  const next = {...check, items, updated_at: now}
  const events = [
    newEvent(check.account_id, 'claim.created', renderClaim(claim), now),
    ...checkChangeEvents(check, next, renderCheck(next, baseUrl), now),
  ]
  return {check: next, claim, events}
}
