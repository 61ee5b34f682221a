// Webhook deliveries to a loopback receiver against plain fetch, and how soon a push's first attempt arrives.
import {dispatcherRate, fetchRate, firstAttemptLatencies, sampleEventBody} from '../deliveries.js'
import {quiet, startHelper} from '../processes.js'
import {figure, progress, round} from '../report.js'
import {DELIVERIES, LATENCY_SAMPLES, LATENCY_WARMUP, RUNS} from '../settings.js'
import {median} from '../stats.js'

async function measureDeliveries(small) {
  const receiver = await startHelper('receiver.js')
  try {
    const rates = {dispatcher: [], fetch: []}
    const body = await sampleEventBody(small)
    // a fresh server's first run of attempts sends at about half the rate of later ones (connections, JIT): not measured
    await dispatcherRate(small, receiver, DELIVERIES, 'warm-up')
    for (let run = 1; run <= RUNS; run++) {
      progress(`deliveries ${run}/${RUNS} (${DELIVERIES} each)`)
      await quiet([small.pid])
      rates.dispatcher.push((await dispatcherRate(small, receiver, DELIVERIES, run)).rate)
      await quiet([small.pid])
      rates.fetch.push(await fetchRate(receiver, body, DELIVERIES))
    }
    progress('first-attempt latency')
    await quiet([small.pid])
    const latencies = (await firstAttemptLatencies(small, LATENCY_WARMUP + LATENCY_SAMPLES)).slice(LATENCY_WARMUP)
    return {dispatcher: median(rates.dispatcher), fetch: median(rates.fetch), latency: median(latencies), runs: rates}
  } finally {
    await receiver.stop()
  }
}

/** @type {import('../context.js').Group} */
export default {
  name: 'deliveries',
  needs: ['small'],
  async run(bench) {
    const deliveries = await measureDeliveries(await bench.need('small'))
    bench.results.delivery_runs = {
      dispatcher: deliveries.runs.dispatcher.map((r) => round(r)),
      fetch: deliveries.runs.fetch.map((r) => round(r)),
    }
    bench.figures.push(
      figure('deliveries to a loopback receiver', 'per s', deliveries.dispatcher, {
        baseline: deliveries.fetch,
        at_least: 0.5,
      }),
      figure('push answered -> first attempt arrives, p50', 'ms', deliveries.latency, {at_most: 50}),
    )
  },
}
