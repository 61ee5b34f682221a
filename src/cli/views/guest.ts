import type {Claim, Feedback, Payment} from '../../client/client.js'
import {formatCents, formatDateTime, formatQuantity} from './format.js'
import {style} from './style.js'
import {renderTable} from './table.js'
import {printable} from './printable.js'

const PAYMENT_COLOR: Record<Payment['status'], (text: string) => string> = {
  succeeded: style.green,
  partially_refunded: style.yellow,
  refunded: style.dim,
}

/** Labelled values, one per line, labels padded to one width; a value may be styled: the caller makes it printable. */
function renderFields(rows: [label: string, value: string][]): string {
  const width = Math.max(...rows.map(([label]) => label.length))
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n')
}

/** The first line of every guest resource: what it is, its id, its check. */
const heading = (noun: string, id: string, checkId: string, status?: string) =>
  `${style.bold(noun)} ${printable(id)}${status ? `  ${status}` : ''}  ${style.dim(printable(`check ${checkId}`))}`

export function describeClaim(claim: Claim): string {
  const items = renderTable(claim.items, [
    {header: 'EXTERNAL ID', value: (i) => i.external_id},
    {header: 'QTY', value: (i) => formatQuantity(i.quantity), align: 'right'},
  ])
  return `${heading('Claim', claim.id, claim.check_id)}\n\n${items}`
}

/** A payment with its amounts, right-aligned; refunds, when there are any, one per line. */
export function describePayment(payment: Payment): string {
  const cents = [
    payment.amount_cents,
    payment.tip_cents,
    payment.amount_refunded_cents,
    ...payment.refunds.map((r) => r.amount_cents),
  ]
  const width = Math.max(...cents.map((c) => formatCents(c).length))
  const money = (c: number) => formatCents(c).padStart(width)
  const rows: [string, string][] = [
    ['Amount', money(payment.amount_cents)],
    ['Tip', money(payment.tip_cents)],
    ['Refunded', money(payment.amount_refunded_cents)],
    ...payment.refunds.map((r): [string, string] => [
      'Refund',
      `${money(r.amount_cents)} at ${formatDateTime(r.created_at)}`,
    ]),
    ...(payment.claim_id ? [['Claim', printable(payment.claim_id)] as [string, string]] : []),
  ]
  const status = PAYMENT_COLOR[payment.status](payment.status.replace('_', ' '))
  return `${heading('Payment', payment.id, payment.check_id, status)}\n${renderFields(rows)}`
}

export function describeFeedback(feedback: Feedback): string {
  const stars = '★'.repeat(feedback.rating) + style.dim('☆'.repeat(5 - feedback.rating))
  const rows: [string, string][] = [
    ['Rating', `${feedback.rating}/5 ${stars}`],
    ...(feedback.comment ? [['Comment', printable(feedback.comment)] as [string, string]] : []),
  ]
  return `${heading('Feedback', feedback.id, feedback.check_id)}\n${renderFields(rows)}`
}
