// Webhook backlogs: pushes while deliveries pile up, and how fast a large
// backlog drains. Method: docs/benchmarks.md "Backlogs".
import {api} from './deliveries.js'
import {CheckSet, load, seed} from './load.js'

export const BACKLOG = 50_000
export const FAN_OUT_ENDPOINTS = 100
export const FAN_OUT_PUSHES = 2000
export const DRAIN_COUNT = 15_000

/** Every event type a check push can make: an endpoint for these gets a delivery from every push. */
const CHECK_TYPES = ['check.created', 'check.updated', 'check.closed', 'check.fully_paid']

/**
 * Makes `serve`, which holds the checks of `set`, owe at least BACKLOG
 * deliveries to `hung`, a receiver that holds every answer: one endpoint for
 * every check event, then BACKLOG changing pushes. Resolves once every one
 * of them is stored (each push is answered once its deliveries are).
 */
export async function buildHungBacklog(serve, hung, set) {
  await hung.send({reset: {target: Infinity, hold: true}}, 'reset')
  await api(serve.url, 'POST', '/webhook-endpoints', {url: `${hung.url}/hooks`, event_types: CHECK_TYPES})
  await load(serve.origin, set.changes(), {amount: BACKLOG})
  // a list of deliveries waits for every fan-out the pushes left to the background: all are owed now
  await api(serve.url, 'GET', '/deliveries?limit=1')
}

/**
 * One round of the fan-out figures on `serve` (a fresh server holding the
 * checks of `set`): FAN_OUT_ENDPOINTS endpoints on `receiver` (which answers
 * at once), each taking every check event; FAN_OUT_PUSHES changing pushes,
 * each making a delivery to every endpoint; then, with the pushes over, the
 * rate at which the backlog left behind drains.
 */
export async function fanOutRound(serve, receiver, set) {
  for (let i = 0; i < FAN_OUT_ENDPOINTS; i++) {
    await api(serve.url, 'POST', '/webhook-endpoints', {url: `${receiver.url}/hooks`, event_types: CHECK_TYPES})
  }
  const pushes = await load(serve.origin, set.changes(), {amount: FAN_OUT_PUSHES})
  await receiver.send({reset: {target: DRAIN_COUNT, hold: false}}, 'reset')
  const reached = receiver.nextMessage('reached')
  const started = performance.now()
  await reached
  return {pushes, drain: DRAIN_COUNT / ((performance.now() - started) / 1000)}
}

/**
 * Warms a fresh `serve` up as a server that has run a while: FAN_OUT_PUSHES changing pushes of
 * `set`, each delivered to one endpoint on `receiver`, which is deleted once they have arrived. A
 * fresh server's first attempts run before the JIT has compiled the delivery path (the push path's
 * first runs likewise), and that cost is not what the fan-out figure measures.
 */
export async function warmDeliveries(serve, receiver, set) {
  const endpoint = await api(serve.url, 'POST', '/webhook-endpoints', {
    url: `${receiver.url}/hooks`,
    event_types: CHECK_TYPES,
  })
  await load(serve.origin, set.changes(), {amount: FAN_OUT_PUSHES})
  while ((await api(serve.url, 'GET', '/deliveries?status=pending&limit=1')).json.data.length > 0)
    await new Promise((resolve) => setTimeout(resolve, 50))
  await api(serve.url, 'DELETE', `/webhook-endpoints/${endpoint.json.id}`)
}

/** A fresh check set for a fan-out server, seeded on it. */
export async function seedFanOut(serve, count, tag) {
  const set = new CheckSet(`fan-${tag}-`, count)
  await seed(serve.origin, set)
  return set
}
