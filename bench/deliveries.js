// Webhook deliveries: how many per second the dispatcher sends, against
// plain signed fetch POSTs, and how soon the first attempt leaves.
import {createServer} from 'node:http'
import {signPayload} from '../dist/index.js'
import {CheckSet, seed} from './load.js'
import {cpuMs, WRITE_KEY} from './processes.js'

/** What the dispatcher allows in flight to one endpoint (src/webhooks/scheduler.ts). */
export const PER_ENDPOINT = 8

/** One API call with the write key; throws on an answer that is not 2xx. */
export async function api(url, method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: {authorization: `Bearer ${WRITE_KEY}`, ...(body ? {'content-type': 'application/json'} : {})},
    body: body && JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
  return {text, json: text ? JSON.parse(text) : undefined}
}

/**
 * Deliveries/s of the real server: `n` check.created events are made while
 * the receiver holds its answers back, so the dispatcher has a backlog of
 * `n` due deliveries; the clock runs from the release to the receiver
 * counting the `n`th request. With `pids`, also the CPU each of those
 * processes took per delivery over the same span, in µs (`cpuUs`).
 *
 * @returns {Promise<{rate: number, cpuUs: number[]}>}
 */
export async function dispatcherRate(serve, receiver, n, tag, pids = []) {
  const endpoint = await api(serve.url, 'POST', '/webhook-endpoints', {
    url: `${receiver.url}/hooks`,
    event_types: ['check.created'],
  })
  try {
    await receiver.send({reset: {target: n, hold: true}}, 'reset')
    await seed(serve.origin, new CheckSet(`dlv-${tag}-`, n))
    const reached = receiver.nextMessage('reached')
    const before = pids.map((pid) => cpuMs(pid))
    const started = performance.now()
    const {released} = await receiver.send({release: true}, 'released')
    await reached
    const rate = (n - released) / ((performance.now() - started) / 1000)
    return {rate, cpuUs: pids.map((pid, i) => ((cpuMs(pid) - before[i]) * 1000) / (n - released))}
  } finally {
    await api(serve.url, 'DELETE', `/webhook-endpoints/${endpoint.json.id}`)
  }
}

/** The same count of POSTs with `fetch`, each signed as a delivery is, PER_ENDPOINT at a time. */
export async function fetchRate(receiver, body, n) {
  await receiver.send({reset: {target: n, hold: false}}, 'reset')
  const reached = receiver.nextMessage('reached')
  const started = performance.now()
  let sent = 0
  const worker = async () => {
    while (sent < n) {
      sent++
      const res = await fetch(`${receiver.url}/hooks`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-tablepay-signature': signPayload(body, 'whsec_bench_baseline'),
        },
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      })
      await res.text()
    }
  }
  await Promise.all(Array.from({length: PER_ENDPOINT}, worker))
  await reached
  return n / ((performance.now() - started) / 1000)
}

/** One stored event envelope as the dispatcher sends it, for the baseline's body. */
export async function sampleEventBody(serve) {
  const {json} = await api(serve.url, 'GET', '/events?limit=1')
  return JSON.stringify(json.data[0])
}

/**
 * Milliseconds from a push's answer arriving to its check.created delivery
 * arriving, one push at a time. The receiver runs in this process so that
 * both instants are read from the same clock.
 */
export async function firstAttemptLatencies(serve, samples) {
  let arrived
  const receiver = createServer((req, res) => {
    const at = performance.now()
    req.resume()
    req.on('end', () => {
      res.writeHead(200).end('ok')
      arrived?.(at)
    })
  })
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve(undefined)))
  const endpoint = await api(serve.url, 'POST', '/webhook-endpoints', {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (receiver.address()).port}/hooks`,
    event_types: ['check.created'],
  })
  const set = new CheckSet('latency-', samples)
  const latencies = []
  try {
    for (let i = 0; i < samples; i++) {
      const delivered = new Promise((resolve) => (arrived = resolve))
      const {path, body} = set.next(true)
      const res = await fetch(serve.origin + path, {
        method: 'PUT',
        body,
        headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
      })
      const answeredAt = performance.now()
      await res.text()
      if (res.status !== 201) throw new Error(`latency push answered ${res.status}`)
      latencies.push((await delivered) - answeredAt)
    }
  } finally {
    await api(serve.url, 'DELETE', `/webhook-endpoints/${endpoint.json.id}`)
    receiver.closeAllConnections()
    receiver.close()
  }
  return latencies
}
