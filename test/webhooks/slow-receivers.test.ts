import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {startTestServer, type TestServer} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup(receiverTimeoutMs: number) {
  const sim: TestServer = await startTestServer({serve: {receiverTimeoutMs}})
  cleanup.push(() => sim.close())
  const receiver = async (respond: Parameters<typeof startReceiver>[0]) => {
    const started = await startReceiver(respond)
    // closed before the server: a server closing waits for the attempts out
    cleanup.push(() => started.close())
    return started
  }
  const register = async (url: string) => {
    const answer = await sim.api('POST', '/v1/webhook-endpoints', {body: {url, event_types: ['check.created']}})
    expect(answer.status).toBe(201)
    return answer.body as {id: string}
  }
  const push = async (prefix: string, count: number) => {
    for (let i = 0; i < count; i++)
      expect(
        (await sim.api('PUT', `/v1/checks/external/${prefix}${i}`, {body: checkWith([['a', 1, 100]])})).status,
      ).toBe(201)
  }
  const deliveriesOf = async (endpointId: string) =>
    (await sim.api('GET', `/v1/deliveries?endpoint_id=${endpointId}&limit=100`)).body.data as {
      attempts: unknown[]
      status: string
    }[]
  return {sim, receiver, register, push, deliveriesOf}
}

describe('slow receivers', () => {
  it('four endpoints that never answer leave room for a healthy one: its deliveries arrive before any hung attempt times out', async () => {
    const {receiver, register, push, deliveriesOf} = await setup(10_000)
    const hung = await receiver(() => 'hang')
    const hungEndpoints = [
      await register(hung.url),
      await register(hung.url),
      await register(hung.url),
      await register(hung.url),
    ]
    await push('slow-', 40)
    // the hung endpoints take what slots they are given before the healthy one has any work
    await hung.waitFor(24)
    const healthy = await receiver(() => 200)
    const endpoint = await register(healthy.url)
    await push('fast-', 40)
    await healthy.waitFor(40)
    // no hung attempt has ended yet (each would take the 10 s timeout): the healthy deliveries did not wait for one
    for (const {id} of hungEndpoints)
      for (const delivery of await deliveriesOf(id)) expect(delivery.attempts).toEqual([])
    await expect
      .poll(async () => (await deliveriesOf(endpoint.id)).map((d) => d.status), {timeout: 10_000})
      .toEqual(Array(40).fill('succeeded'))
  })

  it("an advance runs a healthy endpoint's whole retry schedule while a hung one's first attempt is still out, and ends after the hung one's last", async () => {
    const {sim, receiver, register, push, deliveriesOf} = await setup(600)
    const arrivals: string[] = []
    const hung = await receiver(({headers}) => {
      arrivals.push(`hung#${headers['x-tablepay-delivery-attempt']}`)
      return 'hang'
    })
    const failing = await receiver(({headers}) => {
      arrivals.push(`failing#${headers['x-tablepay-delivery-attempt']}`)
      return 500
    })
    const hungEndpoint = await register(hung.url)
    const failingEndpoint = await register(failing.url)
    await push('adv-', 1)
    await Promise.all([hung.waitFor(1), failing.waitFor(1)])

    const advance = sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 36 * 3600}})
    // while it runs, the clock says what it waits for
    const waitingFor = async () =>
      (await sim.api('GET', '/v1/sim/clock')).body.advance?.waiting_for.map((w: {endpoint_id: string}) => w.endpoint_id)
    await expect.poll(waitingFor, {timeout: 5000}).toContain(hungEndpoint.id)
    const {body} = await advance
    // the advance answers the clock as GET does, once it has ended
    expect(body).toMatchObject({object: 'clock', attempts: 12, advance: null})
    expect(arrivals.filter((a) => a.startsWith('failing'))).toEqual([
      'failing#1',
      'failing#2',
      'failing#3',
      'failing#4',
      'failing#5',
      'failing#6',
      'failing#7',
    ])
    expect(arrivals.filter((a) => a.startsWith('hung'))).toEqual([
      'hung#1',
      'hung#2',
      'hung#3',
      'hung#4',
      'hung#5',
      'hung#6',
      'hung#7',
    ])
    // every retry of the failing endpoint went out before the hung endpoint's first attempt timed out
    expect(arrivals.indexOf('failing#7')).toBeLessThan(arrivals.indexOf('hung#2'))
    expect((await deliveriesOf(hungEndpoint.id)).map((d) => d.status)).toEqual(['dead'])
    expect((await deliveriesOf(failingEndpoint.id)).map((d) => d.status)).toEqual(['dead'])
    expect((await sim.api('GET', '/v1/sim/clock')).body.advance).toBeNull()
    expect((await sim.api('POST', '/v1/sim/clock/reset')).body).toMatchObject({offset_seconds: 0, advance: null})
  })

  it("an advance sends no endpoint's retry while an attempt is out to it, though another endpoint's retry falls due first at that time", async () => {
    const {sim, receiver, deliveriesOf} = await setup(1500)
    // the first attempt is held until the receiver timeout; each later one answers 500
    let open = 0
    let advancing = false
    const overlapping: string[] = []
    let recorded: () => void
    const otherRecorded = new Promise<void>((resolve) => (recorded = resolve))
    const received: string[] = []
    const held = createServer(async (req, res) => {
      for await (const _ of req);
      const attempt = `${req.headers['x-tablepay-event-type']}#${req.headers['x-tablepay-delivery-attempt']}`
      received.push(attempt)
      if (advancing && open > 0) overlapping.push(attempt)
      if (attempt === 'check.created#1') {
        open++
        req.socket.once('close', () => open--)
        return
      }
      // the other endpoint's failure is recorded first, so its retry comes first among those due at one time
      await otherRecorded
      res.writeHead(500).end()
    })
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve))
    cleanup.push(
      () => new Promise((resolve) => held.close(resolve)),
      async () => held.closeAllConnections(),
    )
    const failing = await receiver(() => 500)
    const endpoint = async (port: number | string, event_types: string[]) =>
      (
        await sim.api('POST', '/v1/webhook-endpoints', {
          body: {url: typeof port === 'string' ? port : `http://127.0.0.1:${port}/`, event_types},
        })
      ).body as {id: string}
    await endpoint((held.address() as AddressInfo).port, ['check.created', 'check.updated'])
    const other = await endpoint(failing.url, ['check.updated'])
    await sim.api('PUT', '/v1/checks/external/lane-1', {body: checkWith([['a', 1, 100]], {version: 1})})
    await expect.poll(() => received).toEqual(['check.created#1'])
    await sim.api('PUT', '/v1/checks/external/lane-1', {body: checkWith([['a', 1, 200]], {version: 2})})
    await expect.poll(async () => (await deliveriesOf(other.id))[0]?.attempts.length).toBe(1)
    recorded!()
    await expect
      .poll(async () =>
        (await sim.api('GET', '/v1/deliveries?status=pending')).body.data.filter(
          (d: {attempts: unknown[]}) => d.attempts.length === 1,
        ),
      )
      .toHaveLength(2)
    // both retries fall due 60 s after the push, while the first attempt is still out
    advancing = true
    expect((await sim.api('POST', '/v1/sim/clock/advance', {body: {seconds: 60}})).status).toBe(200)
    expect(received).toEqual(expect.arrayContaining(['check.created#2', 'check.updated#2']))
    expect(overlapping).toEqual([])
  })
})
