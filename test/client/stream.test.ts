import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {TablepayConnectionError, TablepayUnexpectedAnswerError} from '../../src/client/errors.js'
import {checkWith} from '../helpers/checks.js'
import {startTestServer, WRITE_KEY} from '../helpers/simulator.js'

// node's `--expose-gc`, switched on in this worker: the test must force the collection it is about
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

describe('client.openStream', () => {
  it('keeps the stream open through garbage collections between opening it and reading it', async () => {
    const sim = await startTestServer({memory: true})
    cleanup.push(() => sim.close())
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY})
    for (const id of ['g1', 'g2', 'g3']) {
      const stop = new AbortController()
      cleanup.push(async () => stop.abort())
      const messages = await client.openStream({signal: stop.signal})
      // what `listen` does in this gap (register its endpoint) leaves time for a collection; force a few
      for (let i = 0; i < 3; i++) {
        gc()
        await new Promise((resolve) => setImmediate(resolve))
      }
      expect((await sim.api('PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})).status).toBe(201)
      const first = await messages.next()
      expect(first.done).toBe(false)
      expect(first.value).toMatchObject({type: 'event', data: {type: 'check.created'}})
    }
  })

  it("rejects with the caller's abort, not a TablepayConnectionError, when its signal aborts while the stream opens", async () => {
    let arrived: () => void = () => {}
    const server = createServer((req) => {
      req.resume()
      arrived()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanup.push(() => new Promise((resolve) => server.close(resolve)))
    cleanup.push(async () => server.closeAllConnections())
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    // with a timeout too, which the client joins to the caller's signal
    for (const timeoutMs of [0, 60_000]) {
      const stop = new AbortController()
      const held = new Promise<void>((resolve) => (arrived = resolve))
      const opening = new TablepayClient({url, apiKey: 'k', timeoutMs}).openStream({signal: stop.signal})
      await held
      stop.abort()
      const error = await opening.catch((error: unknown) => error)
      expect(error).toBe(stop.signal.reason)
      expect(error).toMatchObject({name: 'AbortError'})
    }
  })

  it('ends with a TablepayConnectionError, not undici TypeError, when the connection breaks mid-stream', async () => {
    const event = {object: 'event', id: 'evt_1', type: 'check.created', data: {}}
    const server = createServer((req, res) => {
      res.writeHead(200, {'content-type': 'text/event-stream'})
      res.write(`event: event\ndata: ${JSON.stringify(event)}\n\n`, () => setImmediate(() => req.socket.destroy()))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanup.push(() => new Promise((resolve) => server.close(resolve)))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const messages = await new TablepayClient({url, apiKey: 'k'}).openStream()
    expect((await messages.next()).value).toMatchObject({type: 'event', data: {id: 'evt_1'}})
    const broken = await messages.next().catch((error: unknown) => error)
    expect(broken).toBeInstanceOf(TablepayConnectionError)
    expect(broken).toMatchObject({code: 'connection_failed', cause: expect.any(TypeError)})
  })

  it('refuses an answer that is no event stream (a proxy, another service), which would read as one ended at once', async () => {
    const other = createServer((_, res) =>
      res.writeHead(200, {'content-type': 'text/html'}).end('<html>Sign in</html>'),
    )
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    cleanup.push(() => new Promise((resolve) => other.close(resolve)))
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
    const client = new TablepayClient({url, apiKey: WRITE_KEY})
    await expect(client.openStream()).rejects.toMatchObject({
      constructor: TablepayUnexpectedAnswerError,
      code: 'unexpected_answer',
      message: expect.stringContaining('content-type: text/html'),
    })
  })

  it("opens with the client's key and accept, whatever case the client's own headers give them", async () => {
    const sim = await startTestServer({memory: true})
    cleanup.push(() => sim.close())
    const headers = {Accept: 'application/json', Authorization: 'Bearer tp_test_nobody'}
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY, headers})
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    const messages = await client.openStream({signal: stop.signal})
    expect((await sim.api('PUT', '/v1/checks/external/h1', {body: checkWith([['a', 1, 100]])})).status).toBe(201)
    expect((await messages.next()).value).toMatchObject({type: 'event', data: {type: 'check.created'}})
  })

  it('closes the connection at return(), before the first next() and while a next() waits for a message', async () => {
    const closed: Promise<void>[] = []
    const server = createServer((req, res) => {
      closed.push(new Promise((resolve) => res.on('close', resolve)))
      res.writeHead(200, {'content-type': 'text/event-stream'})
      res.write(': open\n\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanup.push(() => new Promise((resolve) => server.close(resolve)))
    cleanup.push(async () => server.closeAllConnections())
    const client = new TablepayClient({url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k'})

    const unread = await client.openStream()
    expect(await unread.return(undefined)).toEqual({done: true, value: undefined})
    await closed[0]

    const waiting = await client.openStream()
    const next = waiting.next()
    await waiting.return(undefined)
    await closed[1]
    expect(await next).toEqual({done: true, value: undefined})
    // a connection left open is never closed: the test fails by its timeout
  }, 10_000)
})
