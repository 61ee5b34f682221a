import {connect} from 'node:net'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {seedStore, type ServiceOptions} from '../../src/server/service.js'
import {checkWith} from '../helpers/checks.js'
import {serveStorage} from '../helpers/serve-storage.js'
import {openTestStore} from '../helpers/postgres.js'
import {call, TEST_SEED, WRITE_KEY} from '../helpers/simulator.js'
import {openStream as openSse, type Stream} from '../helpers/sse.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** The seeded API on a real port, with its stream hub at hand to count renders. */
async function serve(options: ServiceOptions = {}) {
  const {store, close} = await openTestStore()
  await seedStore(store, {seed: TEST_SEED})
  const {url, running, close: stop} = await serveStorage(store, options)
  cleanup.push(async () => {
    await stop()
    await close()
  })
  const push = async (externalId: string, version: number) => {
    const answer = await call(url, 'PUT', `/v1/checks/external/${externalId}`, {
      body: checkWith([['a', 1, 1000]], {version, table: {number: externalId}}),
    })
    expect(answer.status).toBeLessThan(300)
    return {check: answer.body, path: new URL(answer.body.guest_url).pathname}
  }
  return {url, streams: running.streams, push}
}

/** A server-sent event stream over its own connection, closed after the test. */
async function openStream(url: string, headers: Record<string, string> = {}): Promise<Stream> {
  const stream = await openSse(url, headers)
  cleanup.push(async () => stream.close())
  return stream
}

const versionSeen = (version: number) => (text: string) => text.includes(`"version":${version},`)

describe('the table page streams (GET /t/{token}/stream)', () => {
  it('render each change once for all the streams of a check, however many are open, and send them the same bytes', async () => {
    const {url, streams, push} = await serve({streamLimits: {perCheck: 300, perAddress: 300}})
    const {path} = await push('t1', 1)
    const open = await Promise.all(Array.from({length: 200}, () => openStream(`${url}${path}/stream`)))
    await Promise.all(open.map((s) => s.until(versionSeen(1))))
    expect(streams.stats()).toEqual({topics: 1, streams: 200, renders: 1})

    await push('t1', 2)
    const received = await Promise.all(open.map((s) => s.until(versionSeen(2))))
    expect(streams.stats()).toMatchObject({topics: 1, renders: 2})
    expect(new Set(received).size).toBe(1)
    // another check's change is another topic's: nothing is rendered for this one
    await push('t2', 1)
    expect(streams.stats()).toMatchObject({renders: 2})
  })

  it('take at most the per-check cap: 429 rate_limited beyond, with the error body and Retry-After, and a closed stream frees its place', async () => {
    const {url, streams, push} = await serve({streamLimits: {perCheck: 2, perAddress: 10}})
    const {path} = await push('t1', 1)
    const first = await openStream(`${url}${path}/stream`)
    await openStream(`${url}${path}/stream`)
    const refused = await openStream(`${url}${path}/stream`, {'x-request-id': 'too-many-1'})
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('1')
    expect(JSON.parse(refused.text)).toEqual({
      error: {code: 'rate_limited', message: expect.stringContaining('at most 2'), request_id: 'too-many-1'},
    })
    // another check has its own places
    expect((await openStream(`${url}${(await push('t2', 1)).path}/stream`)).status).toBe(200)

    first.close()
    await vi.waitFor(() => expect(streams.stats().streams).toBe(2))
    expect((await openStream(`${url}${path}/stream`)).status).toBe(200)
  })

  it('take at most the per-address cap, counted over every check and the API stream, with Retry-After', async () => {
    const {url, push} = await serve({streamLimits: {perCheck: 10, perAddress: 3}})
    const [one, two] = [await push('t1', 1), await push('t2', 1)]
    for (const path of [one.path, one.path, two.path])
      expect((await openStream(`${url}${path}/stream`)).status).toBe(200)
    const refused = await openStream(`${url}${two.path}/stream`)
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.text).error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringContaining('this address'),
    })
    const api = await openStream(`${url}/v1/sim/stream`, {authorization: `Bearer ${WRITE_KEY}`})
    expect(api.status).toBe(429)
    expect(api.headers['retry-after']).toBe('1')
  })

  it('end after `gone`, freeing their places', async () => {
    const {url, streams, push} = await serve({streamLimits: {perCheck: 2, perAddress: 10}})
    const {check, path} = await push('t1', 1)
    const open = [await openStream(`${url}${path}/stream`), await openStream(`${url}${path}/stream`)]
    await Promise.all(open.map((s) => s.until(versionSeen(1))))
    await call(url, 'POST', '/v1/sim/reset')
    for (const text of await Promise.all(open.map((s) => s.ended())))
      expect(text).toMatch(new RegExp(`event: gone\ndata: \\{"id":"${check.id}"\\}\n\n$`))
    await vi.waitFor(() => expect(streams.stats()).toMatchObject({topics: 0, streams: 0}))
  })

  it("answer HEAD with the stream's headers and end it, holding no place", async () => {
    const {url, streams, push} = await serve()
    const {path} = await push('t1', 1)
    const res = await fetch(`${url}${path}/stream`, {method: 'HEAD'})
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(await res.text()).toBe('')
    await vi.waitFor(() => expect(streams.stats()).toMatchObject({topics: 0, streams: 0}))
  })

  it('answer a HEAD that asks for the connection to close with Connection: close, and close it', async () => {
    const {url} = await serve()
    const {hostname, port} = new URL(url)
    const socket = connect(Number(port), hostname)
    let head = ''
    socket.on('data', (chunk: Buffer) => (head += chunk.toString('latin1')))
    const closed = new Promise((resolve) => socket.once('close', resolve))
    const auth = `Authorization: Bearer ${WRITE_KEY}`
    socket.write(`HEAD /v1/sim/stream HTTP/1.1\r\nHost: x\r\n${auth}\r\nConnection: close\r\n\r\n`)
    await closed
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(head.toLowerCase()).toContain('\r\nconnection: close\r\n')
  })

  it('drop a client that stops reading once it is over 1 MiB behind, while the others keep up', async () => {
    const {url, streams} = await serve()
    // 500 items with long names: each change is a message of about 150 KB
    const lines = Array.from({length: 500}, (_, i) => [`item-${i}`, 1, 100] as [string, number, number])
    const big = (version: number) => {
      const body = checkWith(lines, {version})
      body.items = body.items.map((item) => ({...item, name: 'x'.repeat(200)}))
      return call(url, 'PUT', '/v1/checks/external/big', {body})
    }
    const path = new URL((await big(1)).body.guest_url).pathname
    const stuck = connect(Number(new URL(url).port), '127.0.0.1')
    stuck.write(`GET ${path}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
    stuck.pause()
    cleanup.push(async () => stuck.destroy())
    const reader = await openStream(`${url}${path}/stream`)
    await vi.waitFor(() => expect(streams.stats().streams).toBe(2))

    let version = 1
    while (streams.stats().streams === 2 && version < 300) await big(++version)
    expect(streams.stats().streams).toBe(1)
    await reader.until(versionSeen(version))
  })
})
