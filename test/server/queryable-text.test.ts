import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {idRule} from '../../src/domain/ids.js'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {startTestServer} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function server() {
  const sim = await startTestServer()
  cleanup.push(() => sim.close())
  return sim
}

const REFUSED = 'must not contain the NUL character (\\u0000) or an unpaired surrogate (\\ud800-\\udfff)'

describe('a NUL or an unpaired surrogate, which PostgreSQL cannot query in a record', () => {
  it("an endpoint's url or description holding either is refused with 422 naming it, wherever they are set", async () => {
    const sim = await server()
    const refused = async (method: string, path: string, body: object, field: string) => {
      const answer = await sim.api(method, path, {body})
      expect([answer.status, answer.body.error.code, answer.body.error.details]).toEqual([
        422,
        'validation_failed',
        [{path: field, message: REFUSED}],
      ])
    }
    const url = 'http://127.0.0.1:9/hooks'
    await refused('POST', '/v1/webhook-endpoints', {url, description: 'a\u0000b'}, 'description')
    await refused('POST', '/v1/webhook-endpoints', {url: `${url}?q=\u0000`}, 'url')
    await refused('POST', '/v1/webhook-endpoints', {url, description: 'a\ud800b'}, 'description')
    await refused('POST', '/v1/webhook-endpoints', {url: `${url}?q=\udc00`}, 'url')
    const secret = `whsec_${'a'.repeat(32)}`
    await refused('POST', '/v1/sim/webhook-endpoints', {url, secret, description: '\u0000'}, 'description')
    const endpoint = (await sim.api('POST', '/v1/webhook-endpoints', {body: {url}})).body
    await refused('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {description: 'a\u0000b'}, 'description')
    await refused('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {description: '\udfff\ud800'}, 'description')
    expect((await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.description).toBeNull()
  })

  it("a check's strings may hold either: its events reach the receiver and it reads back as pushed", async () => {
    const sim = await server()
    const receiver = await startReceiver()
    cleanup.push(() => receiver.close())
    await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.created']}})
    const check = checkWith([['a', 1, 100]])
    const pushed = await sim.api('PUT', '/v1/checks/external/t1', {
      body: {...check, items: [{...check.items[0]!, name: 'x\u0000y\ud800'}]},
    })
    expect(pushed.status).toBe(201)
    await receiver.waitFor(1)
    expect(JSON.parse(receiver.received[0]!.body).data.items[0].name).toBe('x\u0000y\ud800')
    expect((await sim.api('GET', `/v1/checks/${pushed.body.id}`)).body.items[0].name).toBe('x\u0000y\ud800')
  })

  it("a receiver's answer holding NUL bytes is kept with U+FFFD, and the delivery's retries are made", async () => {
    const receiver = createServer((req, res) => {
      req.resume()
      req.on('end', () => res.writeHead(500).end('a\u0000b'))
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    cleanup.push(async () => {
      receiver.closeAllConnections()
      await new Promise((resolve) => receiver.close(resolve))
    })
    const sim = await server()
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
    await sim.api('POST', '/v1/webhook-endpoints', {body: {url, event_types: ['check.created']}})
    await sim.api('PUT', '/v1/checks/external/t1', {body: checkWith([['a', 1, 100]])})
    // the first attempt is due at once; an advance waits for it to be recorded, then makes the retries due
    await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 0.001}})
    await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 600}})
    const [delivery] = (await sim.api('GET', '/v1/deliveries')).body.data
    expect(delivery.attempts.length).toBeGreaterThanOrEqual(3)
    for (const attempt of delivery.attempts) expect(attempt.response_body).toBe('a\uFFFDb')
  })

  it('an imported snapshot whose endpoint, delivery or payment holds either is refused with 422 naming it', async () => {
    const sim = await server()
    await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/hooks'}})
    const check = (await sim.api('PUT', '/v1/checks/external/t1', {body: checkWith([['a', 1, 100]])})).body
    await sim.api('POST', `/v1/sim/checks/${check.id}/payments`, {body: {amount_cents: 50}})
    await sim.api('POST', '/v1/sim/snapshots', {body: {name: 'with-endpoint'}})
    const exported = (await sim.api('GET', '/v1/sim/snapshots/with-endpoint/export')).body
    exported.records.webhook_endpoints[0].description = 'a\u0000b'
    exported.records.deliveries[0].endpoint_id = 'we_\u0000'
    exported.records.payments[0].claim_id = 'clm_\udc00'
    const imported = await sim.api('POST', '/v1/sim/snapshots/import', {body: {...exported, name: 'odd'}})
    expect([imported.status, imported.body.error.details]).toEqual([
      422,
      [
        {path: 'records.payments.0.claim_id', message: REFUSED},
        {path: 'records.webhook_endpoints.0.description', message: REFUSED},
        // a NUL is no letter either: no route could name that endpoint
        {path: 'records.deliveries.0.endpoint_id', message: idRule('we')},
        {path: 'records.deliveries.0.endpoint_id', message: REFUSED},
      ],
    ])
    expect((await sim.api('GET', '/v1/sim/snapshots')).body.data.map((s: {name: string}) => s.name)).toEqual([
      'with-endpoint',
    ])
  })
})
