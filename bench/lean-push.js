// What the two references of a push share (bench/lean-push-server.js,
// bench/pg-push-server.js): the body checked, the check rendered, ids drawn.
import {randomBytes} from 'node:crypto'

const KEYS = new Map([['Bearer tp_test_demo_write', 'acct_demo']])
const BASE = '/v1/checks/external/'
const CHECK_FIELDS = new Set(['version', 'location_id', 'table', 'status', 'items', 'totals'])
const STATUSES = new Set(['open', 'closed', 'voided'])

export const id = (prefix) => prefix + randomBytes(12).toString('base64url')
const isCount = (n) => Number.isInteger(n) && n >= 0

export function valid(body) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  for (const key in body) if (!CHECK_FIELDS.has(key)) return false
  if (typeof body.table?.number !== 'string' || !STATUSES.has(body.status) || !Array.isArray(body.items)) return false
  if (body.version !== undefined && !(Number.isInteger(body.version) && body.version >= 1)) return false
  const seen = new Set()
  for (const item of body.items) {
    if (typeof item?.external_id !== 'string' || seen.has(item.external_id) || typeof item.name !== 'string')
      return false
    if (!(typeof item.quantity === 'number' && item.quantity > 0) || !isCount(item.price_cents)) return false
    seen.add(item.external_id)
  }
  const {subtotal_cents, tax_cents, total_cents} = body.totals ?? {}
  return isCount(subtotal_cents) && isCount(tax_cents) && total_cents === subtotal_cents + tax_cents
}

export function render(externalId, body, old, now) {
  return {
    id: old?.record.id ?? id('chk_'),
    object: 'check',
    external_id: externalId,
    location_id: 'loc_main',
    table: body.table,
    status: body.status,
    version: body.version,
    items: body.items.map((i) => ({
      external_id: i.external_id,
      name: i.name,
      quantity: i.quantity,
      price_cents: i.price_cents,
      note: i.note ?? null,
      claimed_quantity: 0,
    })),
    totals: body.totals,
    amount_paid_cents: 0,
    amount_due_cents: body.totals.total_cents,
    payment_status: 'unpaid',
    guest_url: `http://127.0.0.1/t/${externalId}`,
    created_at: old?.record.created_at ?? now,
    updated_at: now,
  }
}

/**
 * @typedef {{account: string, externalId: string, path: string, text: string, body: any, started: number}} Push
 */

/**
 * A request listener for a check's PUT: the key looked up, the body read,
 * parsed and checked; `push` answers the rest.
 *
 * @param {(res: import('node:http').ServerResponse, push: Push) => void} push
 * @returns {import('node:http').RequestListener}
 */
export function putCheck(push) {
  return (req, res) => {
    const started = performance.now()
    const account = KEYS.get(req.headers.authorization)
    if (req.method !== 'PUT' || !req.url?.startsWith(BASE) || account === undefined) {
      res.writeHead(req.method === 'PUT' ? 401 : 405).end()
      return
    }
    const path = req.url
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const body = JSON.parse(text)
      if (!valid(body)) {
        res.writeHead(422).end()
        return
      }
      push(res, {account, externalId: path.slice(BASE.length), path, text, body, started})
    })
  }
}
