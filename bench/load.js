// Check requests under load: the bodies, the streams that send them, and the
// run of a stream with wrk (bench/wrk.js) or, without wrk, autocannon.
// Method: docs/benchmarks.md "The load".
import {importPeer} from './peer-modules.js'
import {WRITE_KEY} from './processes.js'
import {runWrk, wrkAvailable} from './wrk.js'

export const CONNECTIONS = 50
/** Where tablepay keeps a check by its external id; a peer without that route gets its own base. */
export const CHECKS_BASE = '/v1/checks/external/'

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
 * What follows `{"version":<v>` in checkBody(i, v), for each of the 40
 * tables and the 4 quantities (index `(i % 40) * 4 + v % 4`): the whole body
 * depends on nothing else, so wrk's script builds the same bytes from these.
 */
export function bodyTails() {
  const tails = []
  for (let table = 0; table < 40; table++) {
    for (let q = 0; q < 4; q++) {
      const v = 4 + q
      const body = checkBody(table, v)
      const head = `{"version":${v}`
      if (!body.startsWith(head + ',')) throw new Error('bench: a check body must start with its version')
      tails.push(body.slice(head.length))
    }
  }
  return tails
}

/**
 * @typedef {'change' | 'replay' | 'get'} StreamKind
 * @typedef {{set: CheckSet, kind: StreamKind, base: string}} Stream
 */

/**
 * `count` checks `prefix0…`, and what the server holds of each: a request
 * stream walks them in turn; a change sends version + 1, a replay re-sends
 * the version held (the first request for a check creates it at version 1),
 * a GET reads it.
 */
export class CheckSet {
  cursor = 0

  constructor(prefix, count) {
    this.prefix = prefix
    this.count = count
    this.versions = new Uint32Array(count)
  }

  /** @param {string} [base] */
  changes = (base = CHECKS_BASE) => /** @type {Stream} */ ({set: this, kind: 'change', base})
  /** @param {string} [base] */
  replays = (base = CHECKS_BASE) => /** @type {Stream} */ ({set: this, kind: 'replay', base})
  /** @param {string} [base] */
  gets = (base = CHECKS_BASE) => /** @type {Stream} */ ({set: this, kind: 'get', base})

  /** The index and version of the next request of a `kind` stream, the set moved past it. */
  #step(kind) {
    const i = this.cursor
    this.cursor = (i + 1) % this.count
    if (kind !== 'get' && (kind === 'change' || this.versions[i] === 0)) this.versions[i]++
    return i
  }

  /**
   * The next request of `stream`.
   *
   * @param {Stream} stream
   */
  request({kind, base}) {
    const i = this.#step(kind)
    const path = `${base}${this.prefix}${i}`
    return kind === 'get' ? {method: 'GET', path} : {method: 'PUT', path, body: checkBody(i, this.versions[i])}
  }

  /** Moves the set past `n` requests of a `kind` stream that another generator (wrk) sent. */
  advance(kind, n) {
    for (let k = 0; k < n; k++) this.#step(kind)
  }

  /** The next changing push, for callers that send it themselves. */
  next(change) {
    return this.request(change ? this.changes() : this.replays())
  }
}

/** Changing pushes `set` has sent beyond its first version of each check. */
export const changesSent = (set) => set.versions.reduce((sum, v) => sum + v, 0) - set.count

/** `serve --max-events`'s default: the servers of paired runs are filled past it before their rounds. */
export const EVENT_BOUND = 100_000
/** How far past the bound: retention then prunes as the pushes add, as on a server that ran for weeks. */
const FILL_PAST_BOUND = 10_000

/**
 * Changing pushes until the server holds more events than `--max-events`
 * keeps: every seeded check made one event, every changing push one more.
 * Rounds then measure the steady state of a server that runs for weeks,
 * retention pruning as pushes add; without it, two servers compared round
 * by round held different numbers of events in each round, the faster one
 * more (docs/benchmarks.md, "Method").
 *
 * @param {string} origin
 * @param {CheckSet} set
 */
export async function fillPastEventBound(origin, set) {
  const missing = EVENT_BOUND + FILL_PAST_BOUND - set.count - changesSent(set)
  if (missing > 0) await load(origin, set.changes(), {amount: missing})
}

/**
 * @typedef {{rps: number, p99: number, requests: number, outcomes: Record<string, number>, loaderCpuMs: number, seconds: number}} LoadResult
 */

/** The load generator of this bench run: wrk unless it is missing or `BENCH_LOAD=autocannon`. */
export async function loadGenerator() {
  if (process.env.BENCH_LOAD === 'autocannon') return 'autocannon'
  return (await wrkAvailable()) ? 'wrk' : 'autocannon'
}

/**
 * One run of `stream` against `url`, `duration` seconds or `amount`
 * requests, `connections` at a time. Any non-2xx answer or socket error
 * fails the bench: a figure made of errors measures nothing. `outcomes`
 * counts the X-Tablepay-Push-Result of the answers ("answered" without one).
 *
 * @param {string} url
 * @param {Stream} stream
 * @param {{duration?: number, amount?: number, connections?: number, timeout?: number}} options
 * @returns {Promise<LoadResult>}
 */
export async function load(url, stream, options) {
  return (await loadGenerator()) === 'wrk' ? runWrk(url, stream, options) : autocannonRun(url, stream, options)
}

/**
 * @param {string} url
 * @param {Stream} stream
 * @param {{duration?: number, amount?: number, connections?: number, timeout?: number}} options
 * @returns {Promise<LoadResult>}
 */
async function autocannonRun(url, stream, {duration, amount, connections = CONNECTIONS, timeout = 10}) {
  // typed by @types/autocannon, a dev dependency, so the bench type-checks where bench/.peers is not installed
  /** @type {typeof import('autocannon')} */
  const autocannon = (await importPeer('autocannon')).default
  /** @type {Record<string, number>} */
  const outcomes = {}
  const started = performance.now()
  const cpu = process.cpuUsage()
  let lastAnswer = started
  const result = await autocannon({
    url,
    connections,
    timeout,
    ...(amount === undefined ? {duration} : {amount}),
    headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
    requests: [
      {
        setupRequest: (request) => ({...request, .../** @type {any} */ (stream.set.request(stream))}),
        onResponse: (status, body, context, headers) => {
          lastAnswer = performance.now()
          const outcome = String(headers['x-tablepay-push-result'] ?? 'answered')
          outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
        },
      },
    ],
  })
  const used = process.cpuUsage(cpu)
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `load on ${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    )
  }
  // a run of `amount` requests is timed to its last answer: autocannon ends it on its 1-second tick (2,000 pushes in 0.3 s took 1.01 s)
  const seconds = amount === undefined ? result.duration || 1 : (lastAnswer - started) / 1000
  return {
    rps: result['2xx'] / seconds,
    p99: result.latency.p99,
    requests: result['2xx'],
    outcomes,
    loaderCpuMs: (used.user + used.system) / 1000,
    seconds,
  }
}

/** Pushes every check of `set` once (created, concurrently). */
export function seed(url, set, base = CHECKS_BASE) {
  return load(url, set.replays(base), {amount: set.count})
}
