import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {type RequestStreamMessage, TablepayClient} from '../../src/client/client.js'
import {newAttempts} from '../../src/cli/deliveries/attempt-feed.js'
import {checkWith} from '../helpers/checks.js'
import {startCommand, WRITE_KEY} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {startReceiver} from '../helpers/receiver.js'
import {relay} from '../helpers/relay.js'
import type {RunningCommand} from '../helpers/run-command.js'
import type {ServeOptions} from '../../src/server/start.js'
import {startTestServer, type TestServer} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A server on a fixed port and data dir, so `restart()` comes back where it was, and a receiver behind an endpoint. */
async function restartable() {
  const server = await startTestServer({serve: {port: await freePort()}})
  cleanup.push(() => server.close())
  return {server, env: envFor(server.url), ...(await endpointOn(server))}
}

/**
 * A server (started with `serve`) that the tail reaches through a relay the test can cut: the connection breaks,
 * the server goes on. Its endpoint's receiver answers as `respond` says.
 */
async function behindRelay(serve: Partial<ServeOptions> = {}, respond?: Respond) {
  const server = await startTestServer({serve})
  const port = await freePort()
  const link = relay(port, new URL(server.url))
  await link.open()
  cleanup.push(
    () => server.close(),
    () => link.cut(),
  )
  return {server, link, env: envFor(`http://127.0.0.1:${port}`), ...(await endpointOn(server, respond))}
}

const envFor = (url: string) => ({TABLEPAY_URL: `${url}/v1`, TABLEPAY_API_KEY: WRITE_KEY})

type Respond = Parameters<typeof startReceiver>[0]

async function endpointOn(server: TestServer, respond?: Respond) {
  const receiver = await startReceiver(respond)
  cleanup.push(() => receiver.close())
  const answer = await server.api('POST', '/v1/webhook-endpoints', {
    body: {url: receiver.url, event_types: ['check.created']},
  })
  expect(answer.status).toBe(201)
  receiver.verifyWith(answer.body.secret)
  return {receiver, endpointId: answer.body.id as string}
}

/** Starts a tail in this process and waits for its first status line. */
async function startTail(args: string[], env: Record<string, string>, waiting: string) {
  const tail = startCommand(args, {env})
  cleanup.push(() => tail.interrupt())
  await tail.waitForStderr(waiting)
  return tail
}

/** Pushes a new check (one `check.created`), and resolves with the event's id once the receiver has it. */
async function pushCreated(server: TestServer, receiver: Awaited<ReturnType<typeof startReceiver>>, id: string) {
  // counted first: the delivery may arrive before the push's answer does
  const n = receiver.received.length + 1
  const answer = await server.api('PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})
  expect(answer.status).toBe(201)
  await receiver.waitFor(n)
  return JSON.parse(receiver.received[n - 1]!.body).id as string
}

/** Resolves once `messages` carries the request `id`. */
async function requestLogged(messages: AsyncGenerator<RequestStreamMessage>, id: string) {
  for await (const message of messages) if (message.type === 'request' && message.data.id === id) return
  throw new Error(`the stream ended before request ${id}`)
}

/** What the request log holds, oldest first: `METHOD path` each. */
async function loggedRequests(server: TestServer) {
  const {data} = (await server.api('GET', '/v1/sim/requests?limit=100')).body
  return data.map((entry: {method: string; path: string}) => `${entry.method} ${entry.path}`).reverse()
}

/** The JSON lines of a tail's stdout: each line must parse. */
const jsonLines = (tail: RunningCommand) =>
  tail
    .stdout()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))

describe('deliveries tail across drops', () => {
  it('reconnects when the server restarts on its data dir, says so on stderr, and prints an attempt made after the restart', async () => {
    const {server, env, receiver} = await restartable()
    const tail = await startTail(['deliveries', 'tail', '--json'], env, 'Waiting for delivery attempts')
    const first = await pushCreated(server, receiver, 'before-restart')
    await tail.waitForOutput(first)

    await server.stop()
    await tail.waitForStderr('Stream dropped (the server closed it); reconnecting…')
    await server.restart()
    await tail.waitForStderr('Reconnected')
    const second = await pushCreated(server, receiver, 'after-restart')
    await tail.waitForOutput(second)

    expect((await tail.interrupt()).code).toBe(0)
    // stdout stays one JSON object per attempt; the status lines went to stderr
    expect(jsonLines(tail).map((line) => [line.event_id, line.status_code])).toEqual([
      [first, 200],
      [second, 200],
    ])
  })

  it('prints the attempts made while its connection was cut, once, then goes on live', async () => {
    const {server, link, env, receiver} = await behindRelay()
    const tail = await startTail(['deliveries', 'tail', '--json'], env, 'Waiting for delivery attempts')
    await link.cut()
    await tail.waitForStderr('Stream dropped (')

    // the attempt is recorded while the tail is away: a stream straight to the server shows when
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    const direct = new TablepayClient({url: server.url, apiKey: WRITE_KEY})
    const recorded = newAttempts(await direct.openStream({signal: stop.signal}))
    const missed = await pushCreated(server, receiver, 'while-cut')
    expect((await recorded.next()).value?.delivery.event_id).toBe(missed)

    await link.open()
    await tail.waitForStderr('Reconnected; 1 attempt made meanwhile follows.')
    await tail.waitForOutput(missed)
    const live = await pushCreated(server, receiver, 'after-cut')
    await tail.waitForOutput(live)

    expect((await tail.interrupt()).code).toBe(0)
    expect(jsonLines(tail).map((line) => line.event_id)).toEqual([missed, live])
  })
})

describe('deliveries tail across a restore and a drop', () => {
  it('prints an attempt made while it was away, though numbered as one it printed before the restore', async () => {
    const {server, link, env} = await behindRelay({retrySchedule: [60]}, () => 500)
    const api = async (method: string, path: string, body?: unknown) =>
      expect((await server.api(method, `/v1${path}`, {body})).status).toBeLessThan(300)
    const tail = await startTail(['deliveries', 'tail', '--json'], env, 'Waiting for delivery attempts')
    // the attempts as they are made: a stream straight to the server shows when, the tail cut off or not
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    const direct = new TablepayClient({url: server.url, apiKey: WRITE_KEY})
    const recorded = newAttempts(await direct.openStream({signal: stop.signal}))
    const made = async () => (await recorded.next()).value!.attempt

    await api('PUT', '/checks/external/t1', checkWith([['a', 1, 100]]))
    const first = await made()
    await tail.waitForOutput(first.at)
    // saved with one attempt made, its retry due in a minute
    await api('POST', '/sim/snapshots', {name: 'one-attempt'})
    await api('POST', '/sim/clock/advance', {seconds: 60})
    const second = await made()
    await tail.waitForOutput(second.at)
    await api('POST', '/sim/snapshots/one-attempt/restore')
    await link.cut()
    await tail.waitForStderr('Stream dropped (')
    // the restore put the delivery back with its one attempt, and the clock back: its retry is due in a minute again
    await api('POST', '/sim/clock/advance', {seconds: 60})
    const again = await made()
    expect([again.attempt, again.at > second.at]).toEqual([2, true])

    await link.open()
    await tail.waitForStderr('Reconnected')
    // the catch-up holds both, the first as the restore put it back: that one was printed already
    expect(tail.stderr()).toContain('Reconnected; 1 attempt made meanwhile follows.')
    await tail.waitForOutput(again.at)
    expect((await tail.interrupt()).code).toBe(0)
    expect(jsonLines(tail).map((line) => [line.attempt, line.at])).toEqual([
      [1, first.at],
      [2, second.at],
      [2, again.at],
    ])
  })
})

describe('logs tail across drops', () => {
  it('reconnects when the server restarts, says so on stderr, and prints a request made after the restart', async () => {
    const {server, env} = await restartable()
    const tail = await startTail(['logs', 'tail'], env, 'Waiting for requests')
    expect((await server.api('GET', '/v1/checks/external/before-restart')).status).toBe(404)
    await tail.waitForOutput('/v1/checks/external/before-restart')

    await server.stop()
    await tail.waitForStderr('Stream dropped (the server closed it); reconnecting…')
    await server.restart()
    await tail.waitForStderr('Reconnected')
    expect((await server.api('GET', '/v1/checks/external/after-restart')).status).toBe(404)
    await tail.waitForOutput('/v1/checks/external/after-restart')

    expect((await tail.interrupt()).code).toBe(0)
    const lines = tail.stdout().trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatch(/ GET \/v1\/checks\/external\/after-restart 404 not_found \d+ ms req_\w+$/)
  })

  it('with --json, prints the requests made while its connection was cut, once, then goes on live', async () => {
    const {server, link, env} = await behindRelay()
    const tail = await startTail(['logs', 'tail', '--json', '--method', 'put'], env, 'Waiting for requests')
    await link.cut()
    await tail.waitForStderr('Stream dropped (')

    // the request is logged while the tail is away: a stream straight to the server shows when
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    const direct = new TablepayClient({url: server.url, apiKey: WRITE_KEY})
    const logged = await direct.openRequestStream({signal: stop.signal})
    // filtered out (a GET), then the one the tail must catch up on
    expect((await server.api('GET', '/v1/checks/external/while-cut')).status).toBe(404)
    const missed = await server.api('PUT', '/v1/checks/external/while-cut', {body: checkWith([['a', 1, 100]])})
    expect(missed.status).toBe(201)
    const id = missed.headers.get('x-request-id')!
    await requestLogged(logged, id)

    await link.open()
    await tail.waitForStderr('Reconnected; 1 request made meanwhile follows.')
    await tail.waitForOutput(id)
    const live = await server.api('PUT', '/v1/checks/external/after-cut', {body: checkWith([['a', 1, 100]])})
    await tail.waitForOutput(live.headers.get('x-request-id')!)

    expect((await tail.interrupt()).code).toBe(0)
    expect(jsonLines(tail).map((entry) => [entry.id, entry.method, entry.status])).toEqual([
      [id, 'PUT', 201],
      [live.headers.get('x-request-id'), 'PUT', 201],
    ])
  })
})

/**
 * `listen --json` behind a relay whose link is then cut, and the attempts to its endpoint as a stream
 * straight to the server records them: so a test knows when one was made while listen was away.
 */
async function listenCutOff() {
  const {server, link, env} = await behindRelay()
  const target = await startReceiver()
  cleanup.push(() => target.close())
  const args = ['listen', '--forward-to', target.url, '--event-type', 'check.created', '--json']
  const listen = startCommand(args, {env})
  cleanup.push(() => listen.interrupt())
  await listen.waitForOutput('"status":"ready"')
  const {endpoint_id: endpointId} = jsonLines(listen)[0]
  await link.cut()
  await listen.waitForStderr('Stream dropped (')
  const stop = new AbortController()
  cleanup.push(async () => stop.abort())
  const direct = new TablepayClient({url: server.url, apiKey: WRITE_KEY})
  const recorded = newAttempts(await direct.openStream({signal: stop.signal}), {endpointId})
  return {server, link, listen, endpointId, recorded}
}

describe('listen across drops', () => {
  it('prints the attempts made to its endpoint while its connection was cut, once, then goes on live', async () => {
    const {server, link, listen, endpointId, recorded} = await listenCutOff()
    const push = (id: string) => server.api('PUT', `/v1/checks/external/${id}`, {body: checkWith([['a', 1, 100]])})
    expect((await push('while-cut')).status).toBe(201)
    const missed = (await recorded.next()).value!.delivery.event_id

    await link.open()
    await listen.waitForStderr('Reconnected; 1 attempt made meanwhile follows.')
    await listen.waitForOutput(missed)
    expect((await push('after-cut')).status).toBe(201)
    const live = (await recorded.next()).value!.delivery.event_id
    await listen.waitForOutput(live)

    expect((await listen.interrupt()).code).toBe(0)
    expect(
      jsonLines(listen)
        .slice(1)
        .map((line) => [line.endpoint_id, line.event_id]),
    ).toEqual([
      [endpointId, missed],
      [endpointId, live],
    ])
  })
})

describe('what the tails read to draw themselves', () => {
  it('deliveries tail --endpoint logs nothing: neither its look at the endpoint nor its catch-up after a drop', async () => {
    const {server, link, env, receiver, endpointId} = await behindRelay()
    const args = ['deliveries', 'tail', '--json', '--endpoint', endpointId]
    const tail = await startTail(args, env, 'Waiting for delivery attempts')
    await link.cut()
    await tail.waitForStderr('Stream dropped (')
    await pushCreated(server, receiver, 'while-cut')
    await link.open()
    await tail.waitForStderr('Reconnected; 1 attempt made meanwhile follows.')
    expect((await tail.interrupt()).code).toBe(0)
    expect(await loggedRequests(server)).toEqual(['POST /v1/webhook-endpoints', 'PUT /v1/checks/external/while-cut'])
  })

  it('listen logs what it changes, its endpoint made and removed, and nothing of its stream or its catch-up', async () => {
    const {server, link, listen, endpointId, recorded} = await listenCutOff()
    const pushed = await server.api('PUT', '/v1/checks/external/while-cut', {body: checkWith([['a', 1, 100]])})
    expect(pushed.status).toBe(201)
    await recorded.next()
    await link.open()
    await listen.waitForStderr('Reconnected; 1 attempt made meanwhile follows.')
    expect((await listen.interrupt()).code).toBe(0)
    expect(await loggedRequests(server)).toEqual([
      'POST /v1/webhook-endpoints',
      'POST /v1/sim/listen-secret',
      'POST /v1/sim/webhook-endpoints',
      'PUT /v1/checks/external/while-cut',
      `DELETE /v1/webhook-endpoints/${endpointId}`,
    ])
  })
})

describe('a tail stopped while its first stream opens', () => {
  it.each([[['logs', 'tail']], [['deliveries', 'tail']], [['listen', '--forward-to', 'http://127.0.0.1:9/hooks']]])(
    '%j ends quietly, exit 0, having printed and made nothing',
    async (args) => {
      let arrived!: () => void
      const reached = new Promise<void>((resolve) => (arrived = resolve))
      const requests: string[] = []
      // takes the stream's request and never answers it: anything else it would be asked is recorded
      const silent = createServer((req) => {
        requests.push(`${req.method} ${req.url}`)
        arrived()
      })
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
      cleanup.push(() => {
        silent.closeAllConnections()
        return new Promise((resolve) => silent.close(resolve))
      })
      const tail = startCommand(args, {env: envFor(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`)})
      await reached
      const stopped = await tail.interrupt()
      expect([stopped.code ?? 0, stopped.stdout, stopped.stderr]).toEqual([0, '', ''])
      expect(requests).toEqual([expect.stringMatching(/^GET \/v1\/sim\/(requests\/)?stream/)])
    },
  )
})
