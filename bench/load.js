// Check pushes under load: the bodies, and autocannon runs that send them.
import autocannon from 'autocannon'
import {WRITE_KEY} from './processes.js'

export const CONNECTIONS = 50

/** The full state of check `i` at `version`: the quantity of one item changes with each version, totals follow. */
export function checkBody(i, version) {
  const items = [
    {external_id: 'line-1', name: 'Burrata', quantity: (version % 4) + 1, price_cents: 1400},
    {
      external_id: 'line-2',
      name: 'Steak frites',
      quantity: 2,
      price_cents: 2600,
      note: 'one medium-rare, one well done',
    },
    {external_id: 'line-3', name: 'Sparkling water 75cl', quantity: 1, price_cents: 550},
  ]
  const subtotal = items.reduce((sum, item) => sum + item.quantity * item.price_cents, 0)
  const tax = Math.round(subtotal / 10)
  return JSON.stringify({
    version,
    table: {number: String((i % 40) + 1)},
    status: 'open',
    items,
    totals: {subtotal_cents: subtotal, tax_cents: tax, total_cents: subtotal + tax},
  })
}

/**
 * `count` checks `prefix0…`, and what the server holds of each: pushes
 * change them (version + 1 each time), replays re-send the stored body.
 */
export class CheckSet {
  #next = 0

  constructor(prefix, count) {
    this.prefix = prefix
    this.count = count
    this.versions = new Uint32Array(count)
  }

  #path = (i) => `/v1/checks/external/${this.prefix}${i}`

  /** The next request: each check in turn, changed (`change`) or replayed as stored. */
  next(change) {
    const i = this.#next++ % this.count
    if (change || this.versions[i] === 0) this.versions[i]++
    return {method: 'PUT', path: this.#path(i), body: checkBody(i, this.versions[i])}
  }
}

/**
 * One autocannon run against `url` whose requests come from `next()`;
 * `outcomes` counts the X-Tablepay-Push-Result of the answers. Any non-2xx answer or socket error fails the bench: a figure made of
 * errors measures nothing.
 *
 * @param {string} url
 * @param {() => {method: any, path: string, body?: string}} next the next request (autocannon's method type)
 * @param {{duration?: number, amount?: number, connections?: number}} options a run of `duration` seconds, or of `amount` requests
 */
export async function load(url, next, {duration, amount, connections = CONNECTIONS}) {
  const outcomes = {}
  const started = performance.now()
  let lastAnswer = started
  const result = await autocannon({
    url,
    connections,
    ...(amount === undefined ? {duration} : {amount}),
    headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
    requests: [
      {
        setupRequest: (request) => ({...request, ...next()}),
        onResponse: (status, body, context, headers) => {
          lastAnswer = performance.now()
          const outcome = headers['x-tablepay-push-result'] ?? 'answered'
          outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
        },
      },
    ],
  })
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `load on ${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    )
  }
  // a run of `amount` requests is timed to its last answer: autocannon ends it on its 1-second tick (2,000 pushes in 0.3 s took 1.01 s)
  const seconds = amount === undefined ? result.duration || 1 : (lastAnswer - started) / 1000
  return {rps: result['2xx'] / seconds, p99: result.latency.p99, requests: result['2xx'], outcomes}
}

/** Pushes every check of `set` once (created, concurrently). */
export function seed(url, set) {
  return load(url, () => set.next(false), {amount: set.count})
}
