import {chosenEndpointKey} from './endpoints.js'
import {idPattern, idRule} from './ids.js'
import {refundedFromBill, roundQuantity} from './money.js'
import type {
  CheckRecord,
  ClaimRecord,
  DeliveryRecord,
  EventRecord,
  FeedbackRecord,
  IdempotencyRecord,
  LocationRecord,
  PaymentRecord,
} from './records.js'

/**
 * The records a snapshot's money and claims are kept in, its checks' places, and its events with their
 * deliveries, each of its kind's schema.
 */
export interface Ledger {
  locations: readonly LocationRecord[]
  checks: readonly CheckRecord[]
  claims: readonly ClaimRecord[]
  payments: readonly PaymentRecord[]
  feedback: readonly FeedbackRecord[]
  idempotency_keys: readonly IdempotencyRecord[]
  events: readonly EventRecord[]
  deliveries: readonly DeliveryRecord[]
}

/** A record that another contradicts: where it is, and what. */
export interface Contradiction {
  path: (string | number)[]
  message: string
}

/**
 * Where `ledger`'s records disagree in a way no request leaves them (docs/snapshots.md): a check at a location
 * it does not hold, a claim, payment or feedback of a check it does not hold, a payment's claim of another
 * check, a check's paid amount other than its payments less their refunds, an item's claimed quantity other
 * than its claims' sum, a total below what was paid, a voided check with anything paid or claimed, an
 * idempotency key's answer for a claim, payment or feedback it does not hold, or not as it was made (`answers`),
 * or a delivery of an event it holds under another type. Restored, such a check would lose money: the next
 * payment or refund counts from the amount the check says, and a replayed key answers for a payment that is
 * not there.
 */
export function* contradictions(ledger: Ledger): Generator<Contradiction> {
  const {locations, checks, claims, payments, feedback, idempotency_keys, events, deliveries} = ledger
  // a check's table page shows its location: one of another account's would show that account's
  const locationIds = new Set(locations.map((location) => location.id))
  for (const [i, check] of checks.entries())
    if (!locationIds.has(check.location_id))
      yield {
        path: ['checks', i, 'location_id'],
        message: `names location ${check.location_id}, which the snapshot does not hold`,
      }
  const checkById = new Map(checks.map((check) => [check.id, check]))
  const claimById = new Map(claims.map((claim) => [claim.id, claim]))
  /** Each check's items by external id: one lookup per claim line, however many items a check has. */
  const itemsOf = new Map(checks.map((check) => [check.id, new Set(check.items.map((item) => item.external_id))]))
  /** What each check's payments come to, less their refunds. */
  const paid = new Map<string, number>()
  /** What each check's claims add up to, item by item. */
  const claimed = new Map<string, Map<string, number>>()

  for (const [name, list] of [
    ['claims', claims],
    ['payments', payments],
    ['feedback', feedback],
  ] as const)
    for (const [i, record] of list.entries())
      if (!checkById.has(record.check_id))
        yield {path: [name, i, 'check_id'], message: `names check ${record.check_id}, which the snapshot does not hold`}

  for (const [i, claim] of claims.entries()) {
    const check = checkById.get(claim.check_id)
    if (!check) continue
    const items = claimed.get(check.id) ?? claimed.set(check.id, new Map()).get(check.id)!
    for (const [j, line] of claim.items.entries()) {
      if (!itemsOf.get(check.id)!.has(line.external_id))
        yield {path: ['claims', i, 'items', j, 'external_id'], message: `is no item of check ${check.id}`}
      items.set(line.external_id, roundQuantity((items.get(line.external_id) ?? 0) + line.quantity))
    }
  }
  for (const [i, payment] of payments.entries()) {
    if (payment.claim_id !== null && claimById.get(payment.claim_id)?.check_id !== payment.check_id)
      yield {path: ['payments', i, 'claim_id'], message: `is no claim of check ${payment.check_id} the snapshot holds`}
    paid.set(payment.check_id, (paid.get(payment.check_id) ?? 0) + payment.amount_cents - refundedFromBill(payment))
  }

  for (const [i, check] of checks.entries()) {
    const owed = paid.get(check.id) ?? 0
    if (check.amount_paid_cents !== owed)
      yield {
        path: ['checks', i, 'amount_paid_cents'],
        message: `must be ${owed}, what the check's payments come to less their refunds`,
      }
    else if (check.amount_paid_cents > check.totals.total_cents)
      yield {path: ['checks', i, 'totals', 'total_cents'], message: `must be at least ${owed}, what guests have paid`}
    for (const [j, item] of check.items.entries()) {
      const sum = claimed.get(check.id)?.get(item.external_id) ?? 0
      if (item.claimed_quantity !== sum)
        yield {
          path: ['checks', i, 'items', j, 'claimed_quantity'],
          message: `must be ${sum}, what the check's claims add up to`,
        }
    }
    if (check.status === 'voided' && (owed > 0 || check.items.some((item) => item.claimed_quantity > 0)))
      yield {path: ['checks', i, 'status'], message: 'cannot be voided while guests have paid or claimed from it'}
  }

  const held: Record<string, ReadonlyMap<string, object>> = {
    claim: claimById,
    payment: new Map(payments.map((payment) => [payment.id, payment])),
    feedback: new Map(feedback.map((one) => [one.id, one])),
  }
  for (const [i, key] of idempotency_keys.entries())
    for (const {path, message} of answers(key, held)) yield {path: ['idempotency_keys', i, ...path], message}

  const typeOf = new Map(events.map((event) => [event.id, event.type]))
  for (const [i, delivery] of deliveries.entries()) {
    const type = typeOf.get(delivery.event_id)
    // one of an event the snapshot does not hold is canceled when it comes due (docs/snapshots.md)
    if (type !== undefined && delivery.event_type !== type)
      yield {path: ['deliveries', i, 'event_type'], message: `must be ${type}, the type of event ${delivery.event_id}`}
  }
}

/**
 * Where `key` does not hold what its request answered: the claim, payment or feedback of `held` as it was made,
 * with the status its route answers (201; a refund's payment 200), under the scope of the API key (`api`) or
 * of the table link of the answer's check (`link:<check id>`), as the server keeps it (service/idempotency.ts).
 */
function* answers(key: IdempotencyRecord, held: Record<string, ReadonlyMap<string, object>>) {
  const answer = key.body as {object: string; id: string; check_id: string}
  const record = held[answer.object]!.get(answer.id)
  if (!record) {
    yield {path: ['body', 'id'], message: `answers for ${answer.object} ${answer.id}, which the snapshot does not hold`}
    return
  }
  const field = Object.keys(answer).find((name) => !LATER[answer.object]?.has(name) && differs(answer, record, name))
  if (field)
    yield {
      path: ['body', field],
      message: `must be what ${answer.object} ${answer.id} was made with: a replay answers with it`,
    }
  const statuses = answer.object === 'payment' ? [201, 200] : [201]
  if (!statuses.includes(key.status))
    yield {
      path: ['status'],
      message: `must be ${statuses.join(' or ')}, what a request making a ${answer.object} answers`,
    }
  const [, scope, ...rest] = key.id.split('\u0000')
  // an id not of three parts names no account: foreignKeys says so
  if (rest.length === 1 && scope !== 'api' && scope !== `link:${answer.check_id}`)
    yield {
      path: ['id'],
      message: `must name the scope "api" or "link:${answer.check_id}" between its account and its key: no request would find it`,
    }
}

/** The fields a kept answer may hold otherwise than its record now: a payment's refunds came after it. */
const LATER: Record<string, ReadonlySet<string>> = {
  payment: new Set(['amount_refunded_cents', 'status', 'refunds', 'updated_at']),
}

/** Whether `answer` and `record` hold other values in `field` (values of JSON, compared as their text). */
const differs = (answer: object, record: object, field: string): boolean =>
  JSON.stringify((answer as Record<string, unknown>)[field]) !==
  JSON.stringify((record as Record<string, unknown>)[field])

/** The keys of a snapshot's records that name their account: an idempotency key's id, a chosen endpoint id's place. */
export interface AccountKeyed {
  idempotency_keys?: readonly {id: string; key: string}[]
  webhook_endpoints?: readonly {id: string; stored_as?: string}[]
}

const ENDPOINT_ID = idPattern('we')

/**
 * Each record of `records` kept under a key that names another account than `account` (docs/snapshots.md,
 * "Export and import"): an idempotency key's id is `<account>\0<scope>\0<key>`, and an endpoint whose id its caller chose
 * is kept as `<account>/<id>`, so an endpoint's own id holds no `/`. Restored, such a record would answer
 * another account's requests, or take the place of its endpoint.
 */
export function* foreignKeys(account: string, records: AccountKeyed): Generator<Contradiction> {
  for (const [i, {id, key}] of (records.idempotency_keys ?? []).entries()) {
    const scope =
      id.startsWith(`${account}\u0000`) && id.endsWith(`\u0000${key}`)
        ? id.slice(account.length + 1, -key.length - 1)
        : ''
    if (scope === '' || scope.includes('\u0000'))
      yield {
        path: ['idempotency_keys', i, 'id'],
        message: `must be ${JSON.stringify(`${account}\u0000`)}, its scope, then ${JSON.stringify(`\u0000${key}`)}: the key of account ${account}`,
      }
  }
  for (const [i, {id, stored_as}] of (records.webhook_endpoints ?? []).entries())
    if (!ENDPOINT_ID.test(id)) yield {path: ['webhook_endpoints', i, 'id'], message: idRule('we')}
    else if (stored_as !== undefined && stored_as !== chosenEndpointKey(account, id))
      yield {
        path: ['webhook_endpoints', i, 'stored_as'],
        message: `must be ${JSON.stringify(chosenEndpointKey(account, id))}: where account ${account} keeps the endpoint ${id}`,
      }
}
