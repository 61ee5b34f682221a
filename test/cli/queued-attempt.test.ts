import {afterEach, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {reportAttempt, retryAndWait} from '../../src/cli/deliveries/queued-attempt.js'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {startTestServer, WRITE_KEY} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

describe('deliveries retry, when its attempt does not end within the wait', () => {
  it('says the attempt may be out to a slow receiver, not that it is queued, and how to watch it', async () => {
    // the receiver has longer than the command waits, as `serve --receiver-timeout 60s` gives it
    const [sim, receiver] = await Promise.all([
      startTestServer({memory: true, serve: {receiverTimeoutMs: 60_000}}),
      // the first attempt taken, the retry's held
      startReceiver((req) => (req.headers['x-tablepay-delivery-attempt'] === '1' ? 200 : 'hang')),
    ])
    cleanup.push(
      () => sim.close(),
      () => receiver.close(),
    )
    const endpoint = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: receiver.url, event_types: ['check.created']},
    })
    await sim.api('PUT', '/v1/checks/external/slow', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    const [delivery] = (await sim.api('GET', '/v1/deliveries')).body.data
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY})

    const outcome = await retryAndWait({write: client, read: client}, delivery.id, 500)
    await receiver.waitFor(2)
    const lines: string[] = []
    expect(reportAttempt(outcome, (text) => lines.push(text))).toMatchObject({id: delivery.id, attempted: false})
    expect(lines.at(-1)).toContain('No attempt ended within')
    expect(lines.at(-1)).toContain(
      `out to a slow receiver; \`tablepay deliveries tail --endpoint ${endpoint.body.id}\``,
    )
  })
})
