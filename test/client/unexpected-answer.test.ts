import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {TablepayEventStreamError} from '../../src/client/errors.js'
import {startTestServer, WRITE_KEY} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

/** A client of a server on a loopback port that answers every request `status` with `body()`, as `type`. */
async function clientOf(status: number, type: string, body: () => string): Promise<TablepayClient> {
  const server = createServer((req, res) => {
    req.resume()
    res.writeHead(status, {'content-type': type}).end(body())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup.push(() => new Promise((resolve) => server.close(resolve)))
  return new TablepayClient({url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k'})
}

describe('an answer that is JSON but not the API', () => {
  it('fails the call with unexpected_answer, whatever shape it has, instead of handing it on', async () => {
    const shapes = ['null', '5', '[]', '{"data":5}', '{"object":"list","data":5}', '{"status":"ok"}']
    // a list's items are the API's objects too: a view would read their fields
    shapes.push('{"object":"list","data":[{}]}', '{"object":"list","data":[null]}', '{"object":"list","data":[[]]}')
    let shape = ''
    const client = await clientOf(200, 'application/json', () => shape)
    for (shape of shapes) {
      for (const call of [() => client.listChecks(), () => client.getClock(), () => client.advanceClock(3600)])
        await expect(call()).rejects.toMatchObject({code: 'unexpected_answer'})
    }
    // the routes whose answers hold no `object` are told by their own field
    shape = '{"status":"ok"}'
    await expect(client.getHealth()).resolves.toEqual({status: 'ok'})
  })
})

describe('an error answer whose body is not the API error', () => {
  it('is told by its status, http_<status>, with its text: never a code or message left empty', async () => {
    const bodies = ['{"error":"upstream unavailable"}', '{"error":{}}', '{"error":{"code":5}}', 'null']
    let body = ''
    const client = await clientOf(502, 'application/json', () => body)
    for (body of bodies)
      await expect(client.getCheck('chk_1')).rejects.toMatchObject({
        status: 502,
        code: 'http_502',
        message: expect.stringContaining(body),
      })
  })
})

describe('an event stream asked for as one answer', () => {
  it('fails the request at once with unexpected_answer, naming the stream, instead of waiting for its end', async () => {
    const sim = await startTestServer({memory: true})
    cleanup.push(() => sim.close())
    const client = new TablepayClient({url: sim.url, apiKey: WRITE_KEY})
    const failed = client.request('GET', '/sim/stream')
    await expect(failed).rejects.toBeInstanceOf(TablepayEventStreamError)
    await expect(failed).rejects.toMatchObject({
      code: 'unexpected_answer',
      status: 200,
      message: expect.stringContaining('GET /sim/stream at'),
    })
    await expect(failed).rejects.toThrow('(`client.openStream()`)')
  })
})

describe('a path that is not under /v1', () => {
  it('request() refuses it with a TypeError, sending nothing: fetch would resolve `..` to another route', async () => {
    let requests = 0
    const client = await clientOf(200, 'text/html', () => {
      requests++
      return '<!doctype html>'
    })
    for (const path of ['/..', '/checks/%2e%2e/x', '/checks\\..\\', 'checks'])
      await expect(client.request('GET', path)).rejects.toThrow(
        new TypeError(
          `request: ${JSON.stringify(path)} is not a path under /v1 (it starts with /, no . or .. segment)`,
        ),
      )
    expect(requests).toBe(0)
  })
})

describe('a request fetch would refuse, or send twice', () => {
  it('request() refuses a GET or HEAD with a body with a TypeError saying so, not as a server out of reach', async () => {
    let requests = 0
    const client = await clientOf(200, 'application/json', () => (requests++, '{}'))
    for (const method of ['GET', 'head'])
      await expect(client.request(method, '/checks', {body: {a: 1}})).rejects.toThrow(
        new TypeError(`request: a ${method} request has no body: drop it, or send it with another method`),
      )
    expect(requests).toBe(0)
  })

  it('request() refuses a body JSON cannot hold (a BigInt, NaN), or nested past 64 levels, with a TypeError saying why, not a stack overflow', async () => {
    let requests = 0
    const client = await clientOf(200, 'application/json', () => (requests++, '{}'))
    // one that Node before 26 cannot write out, and one that any Node can
    for (const depth of [20_000, 65]) {
      const deep = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`)
      await expect(client.request('POST', '/checks', {body: deep})).rejects.toThrow(
        new TypeError('request: the body nests deeper than 64 levels, which no tablepay body does'),
      )
    }
    await expect(client.request('POST', '/checks', {body: {n: 1n}})).rejects.toThrow(
      /^request: the body is no JSON value: .*BigInt/,
    )
    // JSON.stringify would send null, and the server would name a value the caller never wrote
    await expect(client.advanceClock(Number.NaN)).rejects.toThrow(
      new TypeError('request: the body holds NaN in "seconds", which JSON cannot carry: pass a finite number'),
    )
    await expect(client.request('POST', '/checks', {body: [Infinity]})).rejects.toThrow(/holds Infinity in "0"/)
    expect(requests).toBe(0)
  })

  it("a caller's header replaces the client's of the same name, whatever its case", async () => {
    const sim = await startTestServer({memory: true})
    cleanup.push(() => sim.close())
    const client = new TablepayClient({
      url: sim.url,
      apiKey: 'tp_test_wrong',
      headers: {'X-Tablepay-Client': 'cli-tail'},
    })
    const answer = await client.request('GET', '/locations', {headers: {Authorization: `Bearer ${WRITE_KEY}`}})
    expect(answer.status).toBe(200)
  })
})
