import {createServer, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import Stripe from 'stripe'
import {afterEach, describe, expect, it} from 'vitest'
import {verifySignature} from '../../src/webhooks/signature.js'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {startTestServer, type TestServer} from '../helpers/simulator.js'

const stripe = new Stripe('sk_test_unused')
const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup(respond?: Parameters<typeof startReceiver>[0], serve?: Parameters<typeof startTestServer>[0]) {
  const receiver = await startReceiver(respond)
  const sim: TestServer = await startTestServer(serve)
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  const register = async (event_types = ['check.created', 'check.updated', 'check.closed'], url = receiver.url) => {
    const answer = await sim.api('POST', '/v1/webhook-endpoints', {body: {url, event_types}})
    expect(answer.status).toBe(201)
    if (url === receiver.url) receiver.verifyWith(answer.body.secret)
    return answer.body as {id: string; secret: string}
  }
  const advance = async (seconds: number) => (await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds}})).body
  return {receiver, sim, register, advance}
}

describe('webhook delivery', () => {
  it("delivers a signed envelope that our verifier and Stripe's both accept, with the documented headers", async () => {
    const {receiver, sim, register} = await setup()
    const endpoint = await register()
    expect(endpoint.secret).toMatch(/^whsec_/)
    expect((await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.secret).toBeUndefined()
    const check = await sim.api('PUT', '/v1/checks/external/w1', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    const [request] = receiver.received
    const header = request!.headers['x-tablepay-signature'] as string
    expect(verifySignature(request!.body, header, endpoint.secret)).toMatchObject({valid: true})
    const event = stripe.webhooks.constructEvent(request!.body, header, endpoint.secret) as unknown as {
      type: string
      data: unknown
      id: string
    }
    expect(event.type).toBe('check.created')
    expect(JSON.stringify(event.data)).toBe(check.text)
    expect(request!.headers).toMatchObject({
      'x-tablepay-event-id': event.id,
      'x-tablepay-event-type': 'check.created',
      'x-tablepay-delivery-attempt': '1',
    })
  })

  it('a URL with user:password@ sends them, decoded, as Basic authorization; without, no Authorization header', async () => {
    const {receiver, sim, register} = await setup()
    const url = new URL(receiver.url)
    url.username = 'pos'
    url.password = 's:cret' // written %3A in the URL
    receiver.verifyWith((await register(['check.created'], url.href)).secret)
    await register(['check.updated'])
    await sim.api('PUT', '/v1/checks/external/w1', {body: checkWith([['a', 1, 100]], {version: 1})})
    await sim.api('PUT', '/v1/checks/external/w1', {body: checkWith([['a', 2, 100]], {version: 2})})
    await receiver.waitFor(2)
    const authorization = (type: string) =>
      receiver.received.find((r) => r.headers['x-tablepay-event-type'] === type)!.headers.authorization
    expect(authorization('check.created')).toBe(`Basic ${Buffer.from('pos:s:cret').toString('base64')}`)
    expect(authorization('check.updated')).toBeUndefined()
  })

  it('a receiver answering 500 gets exactly 7 attempts on the schedule, then the delivery is dead', async () => {
    const {receiver, sim, register, advance} = await setup(() => 500)
    await register()
    await sim.api('PUT', '/v1/checks/external/w2', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    await advance(0.001)
    for (const wait of [60, 300, 1800, 7200, 28800, 86400]) {
      const before = receiver.received.length
      await advance(wait - 1)
      expect(receiver.received.length).toBe(before)
      await advance(1)
      expect(receiver.received.length).toBe(before + 1)
    }
    await advance(7 * 24 * 3600)
    expect(receiver.received).toHaveLength(7)
    const [delivery] = (await sim.api('GET', '/v1/deliveries')).body.data
    expect(delivery.status).toBe('dead')
    const due = delivery.attempts.map((a: {scheduled_at: string}) => Date.parse(a.scheduled_at))
    expect(due.slice(1).map((t: number, i: number) => Math.round((t - due[i]) / 1000))).toEqual([
      60, 300, 1800, 7200, 28800, 86400,
    ])
    expect(receiver.received.map((r) => r.headers['x-tablepay-delivery-attempt'])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
    ])
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1)
  })

  it('with --disable-after 2, two dead deliveries disable the endpoint and no delivery is sent; a ping still is', async () => {
    const {receiver, sim, register, advance} = await setup(() => 500, {serve: {disableAfter: 2}})
    const endpoint = await register(['check.created'])
    await sim.api('PUT', '/v1/checks/external/d1', {body: checkWith([['a', 1, 100]])})
    await sim.api('PUT', '/v1/checks/external/d2', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(2)
    await advance(40 * 3600)
    expect((await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).body.status).toBe('disabled')
    const sent = receiver.received.length
    expect(sent).toBe(14)
    await sim.api('PUT', '/v1/checks/external/d3', {body: checkWith([['a', 1, 100]])})
    await advance(40 * 3600)
    expect(receiver.received.length).toBe(sent)
    // the ping is no delivery: it checks the receiver whatever the endpoint's status (docs/api.md, "The ping")
    const ping = await sim.api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`)
    expect(ping.body).toMatchObject({object: 'webhook_test', succeeded: false, status_code: 500})
    expect(receiver.received.length).toBe(sent + 1)
  })

  it('a receiver that never answers fails after the timeout, and a 301 is a failure', async () => {
    for (const answer of ['hang', 301] as const) {
      const {receiver, sim, register, advance} = await setup(() => answer, {serve: {receiverTimeoutMs: 300}})
      await register()
      await sim.api('PUT', '/v1/checks/external/t', {body: checkWith([['a', 1, 100]])})
      await receiver.waitFor(1)
      await advance(0.001)
      const [delivery] = (await sim.api('GET', '/v1/deliveries')).body.data
      expect(delivery.status).toBe('pending')
      expect(delivery.attempts[0].error).toMatch(answer === 'hang' ? /no answer within 300 ms/ : /redirect/)
    }
  })

  it('an answer whose body does not end in time, or is cut short, is its status, with the body as far as it came', async () => {
    const held: ServerResponse[] = []
    const answering = createServer((req, res) => {
      req.resume()
      // a whole answer, then bytes no answer holds: the client's parser fails in the packet that brought the body
      if (req.url === '/extra') return void req.socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokGARBAGE')
      res.writeHead(req.url === '/failed' ? 500 : 200)
      // the head and a part of the body; then nothing more, or the connection cut
      res.write('partial', () => (req.url === '/cut' ? res.socket?.destroy() : held.push(res)))
    })
    await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve))
    cleanup.push(async () => {
      for (const res of held) res.destroy()
      await new Promise((resolve) => answering.close(resolve))
    })
    const origin = `http://127.0.0.1:${(answering.address() as AddressInfo).port}`
    const {sim, register} = await setup(undefined, {serve: {receiverTimeoutMs: 300}})
    const endpoints = new Map<string, string>()
    for (const kind of ['slow', 'failed', 'cut', 'extra'])
      endpoints.set((await register(['check.created'], `${origin}/${kind}`)).id, kind)
    await sim.api('PUT', '/v1/checks/external/t', {body: checkWith([['a', 1, 100]])})
    const attempted = async () => {
      const {data} = (await sim.api('GET', '/v1/deliveries')).body
      return data.every((d: {attempts: unknown[]}) => d.attempts.length > 0) ? data : []
    }
    await expect.poll(async () => (await attempted()).length, {timeout: 10_000}).toBe(4)
    const byKind = Object.fromEntries(
      (await attempted()).map((d: {endpoint_id: string; status: string; attempts: object[]}) => [
        endpoints.get(d.endpoint_id),
        {status: d.status, ...d.attempts[0]},
      ]),
    )
    expect(byKind.slow).toMatchObject({status: 'succeeded', status_code: 200, response_body: 'partial', error: null})
    expect(byKind.cut).toMatchObject({status: 'succeeded', status_code: 200, response_body: 'partial', error: null})
    expect(byKind.failed).toMatchObject({status: 'pending', status_code: 500, error: 'receiver answered 500'})
    expect(byKind.extra).toMatchObject({status: 'succeeded', status_code: 200, response_body: 'ok', error: null})
  })

  it('only subscribed event types are delivered; the ping reaches any endpoint', async () => {
    const {receiver, sim, register, advance} = await setup()
    const endpoint = await register(['check.closed'])
    await sim.api('PUT', '/v1/checks/external/s1', {body: checkWith([['a', 1, 100]])})
    await sim.api('PUT', '/v1/checks/external/s1', {body: checkWith([['a', 1, 100]], {status: 'closed'})})
    await receiver.waitFor(1)
    await advance(0.001)
    expect(receiver.received.map((r) => r.headers['x-tablepay-event-type'])).toEqual(['check.closed'])
    const ping = await sim.api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`)
    expect(ping.body).toMatchObject({succeeded: true, status_code: 200})
    expect(receiver.received.at(-1)!.headers['x-tablepay-event-type']).toBe('ping')
    expect(
      verifySignature(
        receiver.received.at(-1)!.body,
        receiver.received.at(-1)!.headers['x-tablepay-signature'],
        (endpoint as {secret: string}).secret,
      ).valid,
    ).toBe(true)
  })

  it('a stop lets a test ping to a receiver that never answers go: the ping is answered, the stop not held', async () => {
    // far past the test's own timeout: a stop that waited for the receiver would fail it
    const {receiver, sim, register} = await setup(() => 'hang', {serve: {receiverTimeoutMs: 600_000}})
    const endpoint = await register()
    const ping = sim.api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`)
    await receiver.waitFor(1)
    await sim.stop()
    expect((await ping).body).toMatchObject({
      object: 'webhook_test',
      succeeded: false,
      status_code: null,
      error: 'canceled: the server is stopping',
    })
  })

  it('deliveries pending at a restart go out after it; none is lost', async () => {
    let up = false
    const {receiver, sim, register, advance} = await setup(() => (up ? 200 : 503))
    await register()
    await sim.api('PUT', '/v1/checks/external/r1', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    await advance(0.001)
    await sim.stop()
    up = true
    await sim.restart()
    await advance(60)
    expect(receiver.received).toHaveLength(2)
    const [delivery] = (await sim.api('GET', '/v1/deliveries')).body.data
    expect(delivery).toMatchObject({status: 'succeeded'})
    expect(delivery.attempts.map((a: {status_code: number}) => a.status_code)).toEqual([503, 200])
  })
})

describe('endpoint changes during an attempt', () => {
  it('an endpoint deleted while an attempt is out stays deleted', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const {receiver, sim, register, advance} = await setup(() => gate.then(() => 200))
    const endpoint = await register()
    await sim.api('PUT', '/v1/checks/external/del', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    expect((await sim.api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200)
    release()
    await advance(0.001)
    expect((await sim.api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(404)
  })

  it('a delivery reset away while its attempt is out does not come back when the answer arrives', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const {receiver, sim, register, advance} = await setup(() => gate.then(() => 500))
    await register()
    await sim.api('PUT', '/v1/checks/external/gone', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    await sim.api('POST', '/v1/sim/reset')
    release()
    await advance(0.001) // waits for the attempt in flight to finish
    expect((await sim.api('GET', '/v1/deliveries')).body.data).toEqual([])
  })

  it('deleting an endpoint cancels its pending deliveries at once', async () => {
    const {receiver, sim, register, advance} = await setup(() => 500)
    const endpoint = await register()
    await sim.api('PUT', '/v1/checks/external/cx', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    await advance(0.001) // waits for the first attempt to be recorded
    const pending = async () => (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpoint.id}`)).body.data
    expect(await pending()).toMatchObject([{status: 'pending', attempts: [{status_code: 500}]}])
    await sim.api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)
    expect(await pending()).toMatchObject([{status: 'canceled', next_attempt_at: null}])
  })

  it('reset clears deliveries too', async () => {
    const {receiver, sim, register, advance} = await setup()
    await register()
    await sim.api('PUT', '/v1/checks/external/rs', {body: checkWith([['a', 1, 100]])})
    await receiver.waitFor(1)
    await advance(0.001)
    await sim.api('POST', '/v1/sim/reset')
    expect((await sim.api('GET', '/v1/deliveries')).body.data).toEqual([])
  })
})
