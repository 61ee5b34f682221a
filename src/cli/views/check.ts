import type {Check, PushResult} from '../../client/client.js'
import {formatCents, formatDateTime, formatQuantity, plural} from './format.js'
import {printable} from './printable.js'
import {style} from './style.js'
import {type Column, renderTable} from './table.js'

const STATUS_COLOR: Record<Check['status'], (text: string) => string> = {
  open: style.green,
  closed: style.dim,
  voided: style.red,
}

const RESULT_COLOR: Record<PushResult, (text: string) => string> = {
  created: style.green,
  updated: style.cyan,
  unchanged: style.dim,
  stale: style.yellow,
}

/** What a push did, in a word, then why it matters when that is not obvious. */
export function renderPushResult(result: PushResult, check: Check, sentVersion?: number): string {
  const line = `${RESULT_COLOR[result](result)} ${printable(`${check.id} (external id ${check.external_id})`)}`
  if (result !== 'stale') return line
  return `${line}\n${style.yellow(`The server holds version ${check.version}; version ${sentVersion} is older and changed nothing.`)}`
}

/** Three lines that identify a check and say where it stands; what the POS sent is shown printable. */
export function renderCheckSummary(check: Check): string {
  const table = style.bold(printable(`Table ${check.table.number}`))
  return [
    `${table}  ${STATUS_COLOR[check.status](check.status)}  ${plural(check.items.length, 'item')}  ` +
      `total ${formatCents(check.totals.total_cents)}  due ${formatCents(check.amount_due_cents)} (${check.payment_status.replace('_', ' ')})`,
    printable(`Check ${check.id}  external id ${check.external_id}  location ${check.location_id}  `) +
      `version ${check.version ?? '-'}`,
    `Guest page ${style.underline(printable(check.guest_url))}`,
  ].join('\n')
}

const ITEM_COLUMNS: Column<Check['items'][number]>[] = [
  {header: 'EXTERNAL ID', value: (i) => i.external_id},
  {header: 'NAME', value: (i) => i.name},
  {header: 'QTY', value: (i) => formatQuantity(i.quantity), align: 'right'},
  {header: 'PRICE', value: (i) => formatCents(i.price_cents), align: 'right'},
  {header: 'CLAIMED', value: (i) => formatQuantity(i.claimed_quantity), align: 'right'},
  {header: 'NOTE', value: (i) => i.note ?? ''},
]

export function renderCheckItems(check: Check): string {
  return check.items.length > 0 ? renderTable(check.items, ITEM_COLUMNS) : style.dim('No items.')
}

/** Totals as the POS sent them, then what guests paid. */
export function renderTotals(check: Check): string {
  const rows: [string, number][] = [
    ['Subtotal', check.totals.subtotal_cents],
    ['Tax', check.totals.tax_cents],
    ['Total', check.totals.total_cents],
    ['Paid', check.amount_paid_cents],
    ['Due', check.amount_due_cents],
  ]
  const width = Math.max(...rows.map(([, cents]) => formatCents(cents).length))
  return rows.map(([label, cents]) => `${label.padEnd(8)} ${formatCents(cents).padStart(width)}`).join('\n')
}

const CHECK_COLUMNS: Column<Check>[] = [
  {header: 'ID', value: (c) => c.id},
  {header: 'EXTERNAL ID', value: (c) => c.external_id},
  {header: 'TABLE', value: (c) => c.table.number},
  {header: 'STATUS', value: (c) => c.status, color: (text, c) => STATUS_COLOR[c.status](text)},
  {header: 'ITEMS', value: (c) => String(c.items.length), align: 'right'},
  {header: 'TOTAL', value: (c) => formatCents(c.totals.total_cents), align: 'right'},
  {header: 'DUE', value: (c) => formatCents(c.amount_due_cents), align: 'right'},
  {header: 'UPDATED', value: (c) => formatDateTime(c.updated_at)},
]

export function renderCheckList(checks: readonly Check[]): string {
  return renderTable(checks, CHECK_COLUMNS)
}
