import {createServer, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {TablepayConnectionError, TablepayTimeoutError} from '../../src/client/errors.js'
import {checkWith} from '../helpers/checks.js'
import {startTestServer, WRITE_KEY} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function simulator() {
  const sim = await startTestServer({memory: true})
  cleanup.push(() => sim.close())
  return sim
}

/** A server stuck before its answer (`start` nothing) or in the middle of it. */
async function stuck(start: (res: ServerResponse) => void = () => {}) {
  const held: ServerResponse[] = []
  const server = createServer((req, res) => {
    req.resume()
    start(res)
    held.push(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup.push(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('the client timeout (timeoutMs)', () => {
  it('fails a request the server holds past it with server_timeout, and not one it answers in time', async () => {
    const sim = await simulator()
    // a fault holds the next push 1 s: the server is slow, not gone
    const fault = await sim.api('POST', '/v1/sim/faults', {body: {match: {method: 'PUT'}, delay_ms: 1000}})
    expect(fault.status).toBe(201)
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY, timeoutMs: 200})

    const late = await client.pushCheck('slow-1', checkWith([['a', 1, 100]])).catch((error: unknown) => error)
    expect(late).toBeInstanceOf(TablepayTimeoutError)
    expect(late).toMatchObject({code: 'server_timeout', timeoutMs: 200})
    expect((late as Error).message).toContain(`did not answer within 200 ms`)

    // the fault is spent: the same client's next push is answered within the timeout
    const {result} = await client.pushCheck('slow-2', checkWith([['a', 1, 100]]))
    expect(result).toBe('created')
  })

  it('covers the answer body too: headers and then silence is a timeout', async () => {
    const midAnswer = await stuck((res) => res.writeHead(200, {'content-type': 'application/json'}).write('{"object":'))
    const client = new TablepayClient({url: midAnswer, apiKey: WRITE_KEY, timeoutMs: 200})
    await expect(client.listLocations()).rejects.toMatchObject({code: 'server_timeout'})
  })

  it('waits as long as it takes with none (the default)', async () => {
    const sim = await simulator()
    await sim.api('POST', '/v1/sim/faults', {body: {match: {method: 'PUT'}, delay_ms: 300}})
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY})
    const {result} = await client.pushCheck('patient-1', checkWith([['a', 1, 100]]))
    expect(result).toBe('created')
  })

  /**
   * Fetch's global dispatcher made one that gives up on headers after 50 ms (about 1 s: its timers tick twice
   * a second), as it does after 300 s by default: an Agent of Node's own undici, put where `setGlobalDispatcher`
   * puts it (a test cannot wait 300 s, and undici's timers outlive fake ones).
   */
  async function impatientFetch() {
    await fetch('data:,') // Node loads undici, and its global dispatcher, at fetch's first call
    const slot = Symbol.for('undici.globalDispatcher.1')
    const global = globalThis as unknown as Record<symbol, object>
    const before = global[slot]!
    const Agent = before.constructor as new (options: object) => {close(): Promise<void>}
    const impatient = new Agent({headersTimeout: 50, bodyTimeout: 50})
    global[slot] = impatient
    cleanup.push(async () => {
      global[slot] = before
      await impatient.close()
    })
  }

  it("waits past the limit after which Node's fetch gives up on its own (300 s), and says so where it cannot", async () => {
    await impatientFetch()
    const held: ServerResponse[] = []
    const url = await stuck((res) => held.push(res))
    const patient = new TablepayClient({url, apiKey: WRITE_KEY}).listLocations()
    // as in jest's sandbox, where the client cannot see fetch's dispatcher
    const unseen = new TablepayClient({
      url,
      apiKey: WRITE_KEY,
      fetch: (input, init) => fetch(input, {...init, dispatcher: undefined}),
    })
    const failure = await unseen.listLocations().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(TablepayConnectionError)
    expect((failure as Error).message).toMatch(/had not answered when fetch stopped waiting .*may still be under way/)

    // fetch's limit has passed for the request sent first too: answered now, it still gets its answer
    for (const res of held) res.end(JSON.stringify({object: 'list', data: [], has_more: false}))
    await expect(patient).resolves.toMatchObject({data: []})
  })

  it('fails a stream that does not open in time', async () => {
    const client = new TablepayClient({url: await stuck(), apiKey: WRITE_KEY, timeoutMs: 200})
    await expect(client.openStream()).rejects.toBeInstanceOf(TablepayTimeoutError)
  })

  it("bounds a stream's opening only: an open stream outlives it", async () => {
    const sim = await simulator()
    // long enough for the opening on a loaded machine (100 ms was not, during the whole suite on 2 cores)
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY, timeoutMs: 2000})
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    const messages = await client.openStream({signal: stop.signal})
    // the push is held 2.5 s by a fault, so its event comes after the 2 s
    await sim.api('POST', '/v1/sim/faults', {body: {match: {method: 'PUT'}, delay_ms: 2500}})
    const pushed = sim.api('PUT', '/v1/checks/external/streamed-1', {body: checkWith([['a', 1, 100]])})
    const first = await messages.next()
    expect(first).toMatchObject({done: false, value: {type: 'event', data: {type: 'check.created'}}})
    expect((await pushed).status).toBe(201)
  })
})
