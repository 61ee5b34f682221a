import {request, STATUS_CODES} from 'node:http'
import {connect} from 'node:net'
import {brotliCompressSync, deflateRawSync, deflateSync, gzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {type RawAnswer, rawRequest} from '../helpers/raw-http.js'
import {registeredRoutes, type Route} from '../helpers/routes.js'
import {READ_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
let routes: Route[]
let checkId: string
let guestToken: string
beforeAll(async () => {
  sim = await startTestServer({memory: true})
  routes = await registeredRoutes()
  const check = await sim.api('PUT', '/v1/checks/external/http-1', {body: checkWith([['a', 1, 500]])})
  checkId = check.body.id
  guestToken = new URL(check.body.guest_url).pathname.split('/')[2]!
})
afterAll(() => sim.close())

const auth = {authorization: `Bearer ${WRITE_KEY}`}
const asJson = {...auth, 'content-type': 'application/json'}
const STREAMS = ['/v1/sim/stream', '/t/:token/stream']

/** A route's path with real ids where the test has them, `x` elsewhere. */
const concrete = (path: string) => path.replace(':token', guestToken).replace(':id', checkId).replace(/:\w+/g, 'x')

/** The headers two answers to the same request must share: all but those that differ per answer. */
const comparable = (answer: RawAnswer) => {
  const {date, 'x-request-id': _id, ...rest} = answer.headers
  return rest
}

describe('HEAD', () => {
  it('answers on every GET route with the status and headers of the GET, and no body', async () => {
    const gets = routes.filter((r) => r.method === 'GET' && !STREAMS.includes(r.path))
    expect(gets.length).toBeGreaterThan(20)
    for (const {path} of gets) {
      const get = await rawRequest(sim.url, 'GET', concrete(path), {headers: auth})
      const head = await rawRequest(sim.url, 'HEAD', concrete(path), {headers: auth})
      expect(head.status, path).toBe(get.status)
      expect(comparable(head), path).toEqual(comparable(get))
      expect(head.text).toBe('')
    }
  })

  it('answers /v1/health without a key, as wait-on and curl -I ask it', async () => {
    const head = await rawRequest(sim.url, 'HEAD', '/v1/health')
    expect(head.status).toBe(200)
    expect(head.headers['content-length']).toBe('15')
  })

  it('on an event stream answers its headers and ends, leaving the connection usable', async () => {
    for (const path of STREAMS) {
      const head = await fetch(`${sim.url}${concrete(path)}`, {method: 'HEAD', headers: auth})
      expect(head.status, path).toBe(200)
      expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/)
    }
    expect((await fetch(`${sim.url}/v1/health`)).status).toBe(200)
  })
})

describe('requests pipelined on one connection', () => {
  it('run one after the other, in the order sent: a GET sees the push before it, pushes apply in order', async () => {
    const {port} = new URL(sim.url)
    const push = (price: number) => {
      const body = JSON.stringify(checkWith([['a', 1, price]]))
      return `PUT /v1/checks/external/piped HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${WRITE_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    }
    const get = `GET /v1/checks/external/piped HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${WRITE_KEY}\r\nConnection: close\r\n\r\n`
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1')
      let text = ''
      socket.on('data', (chunk) => (text += chunk))
      socket.on('close', () => resolve(text))
      socket.write(push(100) + push(200) + push(300) + get)
    })
    const answers = answer.split(/(?=HTTP\/1\.1 \d{3} )/)
    expect(answers.map((one) => /X-Tablepay-Push-Result: (\w+)/i.exec(one)?.[1] ?? one.split(' ')[1])).toEqual([
      'created',
      'updated',
      'updated',
      '200',
    ])
    expect(JSON.parse(answers[3]!.split('\r\n\r\n')[1]!).items[0].price_cents).toBe(300)
  })
})

describe('a body whose fields are all optional', () => {
  it('may be left out, with or without a Content-Type, and is then read as {}', async () => {
    const subscription = {url: 'http://127.0.0.1:9/optional-bodies', event_types: ['feedback.received']}
    const created = (await sim.api('POST', '/v1/webhook-endpoints', {body: subscription})).body
    const endpoint = `/v1/webhook-endpoints/${created.id}`
    try {
      const rotated = await sim.api('POST', `${endpoint}/rotate-secret`)
      expect(rotated.status, rotated.text).toBe(200)
      expect(rotated.body.secret).toMatch(/^whsec_/)
      expect(rotated.body.secret).not.toBe(created.secret)
      const patched = await sim.api('PATCH', endpoint, {headers: {'content-type': 'application/json'}})
      expect([patched.status, patched.body.url, patched.body.event_types]).toEqual([
        200,
        subscription.url,
        ['feedback.received'],
      ])
      const chaos = `/v1/sim/webhook-endpoints/${created.id}/chaos`
      const bare = await sim.api('PUT', chaos)
      // the seed is drawn when none is given
      const asEmpty = (await sim.api('PUT', chaos, {body: {}})).body
      expect([bare.status, bare.body]).toEqual([200, {...asEmpty, seed: bare.body.seed}])
      const payment = (await sim.api('POST', `/v1/sim/checks/${checkId}/payments`, {body: {amount_cents: 100}})).body
      const refunded = await sim.api('POST', `/v1/sim/payments/${payment.id}/refund`)
      expect([refunded.status, refunded.body.amount_refunded_cents]).toEqual([200, 100])

      // a body that is sent is still JSON, and a body that is required is still required
      const typed = await sim.api('PATCH', endpoint, {body: '{}', headers: {'content-type': 'text/plain'}})
      expect([typed.status, typed.body.error.code]).toEqual([415, 'unsupported_media_type'])
      const required = await sim.api('POST', '/v1/webhook-endpoints')
      expect([required.status, required.body.error.code]).toEqual([415, 'unsupported_media_type'])
    } finally {
      await sim.api('DELETE', endpoint)
    }
  })
})

describe('405 method_not_allowed', () => {
  it("carries Allow with exactly the methods of the route, on every /v1 route, whatever the key's scopes", async () => {
    // every route the concrete path fits: `/v1/sim/snapshots/import` is also `/v1/sim/snapshots/{name}`
    const v1 = routes.filter((r) => r.path.startsWith('/v1/'))
    const fits = (pattern: string, path: string) =>
      new RegExp(`^${pattern.replace(/:\w+/g, '[^/]+')}$`).test(concrete(path))
    const byPath = new Map<string, Set<string>>()
    for (const {path} of v1) {
      const methods = new Set<string>()
      for (const route of v1.filter((r) => fits(r.path, path))) {
        methods.add(route.method)
        if (route.method === 'GET') methods.add('HEAD')
      }
      byPath.set(path, methods)
    }
    // a read key's write to a path that does not take it: a write key would not change the answer
    for (const key of [WRITE_KEY, READ_KEY])
      for (const [path, methods] of byPath) {
        const wrong = ['PATCH', 'PUT', 'DELETE', 'POST'].find((m) => !methods.has(m))!
        const headers = {authorization: `Bearer ${key}`, 'content-type': 'application/json'}
        const answer = await rawRequest(sim.url, wrong, concrete(path), {headers, body: '{}'})
        expect(answer.status, `${key}: ${wrong} ${path}`).toBe(405)
        expect(answer.body.error.code).toBe('method_not_allowed')
        expect(answer.headers.allow, path).toBe([...methods].sort().join(', '))
      }
  })
})

describe('CONNECT', () => {
  it('is answered 405 with the error body, an empty Allow and its request id, not closed unanswered', async () => {
    const {port} = new URL(sim.url)
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1')
      let text = ''
      socket.on('data', (chunk) => (text += chunk))
      socket.on('close', () => resolve(text))
      socket.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: x\r\nX-Request-Id: req-connect-1\r\n\r\n`)
    })
    const [head, body] = answer.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/)
    expect(head).toMatch(/\r\nallow: \r\n/i)
    expect(head).toMatch(/\r\nx-request-id: req-connect-1\r\n/i)
    expect(JSON.parse(body!).error).toMatchObject({code: 'method_not_allowed', request_id: 'req-connect-1'})
  })
})

describe('query parameters', () => {
  it('every /v1 route refuses one it does not take with 422 naming it, before it acts, as a list does', async () => {
    const lists = ['/v1/checks', '/v1/webhook-endpoints', '/v1/sim/faults', '/v1/events']
    const counts = () =>
      Promise.all(lists.map(async (list) => (await sim.api('GET', `${list}?limit=100`)).body.data.length))
    const before = await counts()
    for (const {method, path} of routes.filter((r) => r.path.startsWith('/v1/'))) {
      const answer = await rawRequest(sim.url, method, `${concrete(path)}?foo=1`, {headers: asJson, body: '{}'})
      expect([answer.status, answer.body.error?.code], `${method} ${path}`).toEqual([422, 'validation_failed'])
      expect(answer.body.error.details, `${method} ${path}`).toEqual([{path: 'foo', message: expect.any(String)}])
    }
    expect(await counts()).toEqual(before)
  })
})

describe('OPTIONS without --cors', () => {
  it('changes nothing, so a read key gets the 405 and its Allow, not a 403 for the write scope', async () => {
    const read = {authorization: 'Bearer tp_test_demo_read'}
    const answer = await rawRequest(sim.url, 'OPTIONS', '/v1/checks/external/http-1', {headers: read})
    expect([answer.status, answer.body.error.code, answer.headers.allow]).toEqual([
      405,
      'method_not_allowed',
      'GET, HEAD, PUT',
    ])
  })
})

describe('the status line', () => {
  it('carries the standard reason phrase, on successes and on every kind of error', async () => {
    const answers = [
      await rawRequest(sim.url, 'GET', '/v1/health'),
      await rawRequest(sim.url, 'PUT', '/v1/checks/external/http-2', {
        headers: asJson,
        body: JSON.stringify(checkWith([])),
      }),
      await rawRequest(sim.url, 'GET', '/v1/checks'),
      await rawRequest(sim.url, 'POST', '/v1/sim/reset', {headers: {authorization: 'Bearer tp_test_demo_read'}}),
      await rawRequest(sim.url, 'GET', '/v1/nope', {headers: auth}),
      await rawRequest(sim.url, 'DELETE', '/v1/checks', {headers: auth}),
      await rawRequest(sim.url, 'PUT', '/v1/checks/external/x', {
        headers: {...auth, 'content-type': 'text/plain'},
        body: 'x',
      }),
      await rawRequest(sim.url, 'PUT', '/v1/checks/external/x', {headers: asJson, body: '{'}),
      await rawRequest(sim.url, 'PUT', '/v1/checks/external/x', {headers: asJson, body: '{}'}),
    ]
    expect(answers.map((a) => a.status)).toEqual([200, 201, 401, 403, 404, 405, 415, 400, 422])
    for (const answer of answers) expect(answer.reason).toBe(STATUS_CODES[answer.status])
  })
})

describe('Content-Encoding of a request body', () => {
  const push = (id: string, body: Buffer | string, headers: Record<string, string>) =>
    rawRequest(sim.url, 'PUT', `/v1/checks/external/${id}`, {headers: {...asJson, ...headers}, body})
  const json = () => JSON.stringify(checkWith([['a', 2, 700]]))

  it.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    // bare deflate data, without zlib's wrapper, as some clients send under `deflate` (the name in any case)
    ['Deflate', deflateRawSync],
    ['br', brotliCompressSync],
    ['deflate, gzip', (b: Buffer) => gzipSync(deflateSync(b))],
    ['identity', (b: Buffer) => b],
  ])('%s is decoded before the body is read as JSON', async (coding, encode) => {
    const id = `enc-${coding.replaceAll(/\W/g, '')}`
    const answer = await push(id, encode(Buffer.from(json())), {'content-encoding': coding})
    expect(answer.status).toBe(201)
    expect(answer.body.items[0]).toMatchObject({external_id: 'a', quantity: 2, price_cents: 700})
  })

  it.each(['compress', 'zstd', 'gzip, snappy'])(
    '%s is 415 unsupported_content_encoding; nothing is stored',
    async (coding) => {
      const answer = await push('enc-unknown', json(), {'content-encoding': coding})
      expect(answer.status).toBe(415)
      expect(answer.body.error.code).toBe('unsupported_content_encoding')
      expect((await sim.api('GET', '/v1/checks/external/enc-unknown')).status).toBe(404)
    },
  )

  it('decodes a transfer coding sent before chunked, after the Content-Encoding, and refuses an unknown one with 415', async () => {
    const gzip = {'transfer-encoding': 'gzip, chunked'}
    const sent = await push('te-gzip', gzipSync(Buffer.from(json())), gzip)
    expect([sent.status, sent.body.items[0]?.quantity]).toEqual([201, 2])
    const both = await push('te-both', gzipSync(deflateSync(Buffer.from(json()))), {
      ...gzip,
      'content-encoding': 'deflate',
    })
    expect(both.status).toBe(201)
    const unknown = await push('te-unknown', json(), {'transfer-encoding': 'compress, chunked'})
    expect([unknown.status, unknown.body.error.code]).toEqual([415, 'unsupported_content_encoding'])
    expect(unknown.body.error.message).toContain('Transfer-Encoding "compress"')
    expect((await sim.api('GET', '/v1/checks/external/te-unknown')).status).toBe(404)
  })

  it('refuses a small body that decodes past 1 MiB with 413, without inflating all of it', async () => {
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024, ' '))
    expect(bomb.length).toBeLessThan(128 * 1024)
    const answer = await push('enc-bomb', bomb, {'content-encoding': 'gzip'})
    expect(answer.status).toBe(413)
    expect(answer.body.error.code).toBe('payload_too_large')
  })

  it('answers a compressed body sent without its Content-Encoding with invalid_json quoting none of it', async () => {
    const answer = await push('enc-missing', gzipSync(Buffer.from(json())), {})
    expect(answer.status).toBe(400)
    expect(answer.body.error.code).toBe('invalid_json')
    // printable text only: no control characters, no replacement characters of undecodable bytes
    expect(answer.body.error.message).toMatch(/^[\x20-\x7e]+$/)
  })

  it('answers a body in another charset than UTF-8 with invalid_json, and stores nothing', async () => {
    const latin1 = Buffer.from(json().replace('Item a', 'Caf\u00e9'), 'latin1')
    const answer = await push('latin-1', latin1, {'content-type': 'application/json; charset=iso-8859-1'})
    expect([answer.status, answer.body.error.code]).toEqual([400, 'invalid_json'])
    expect(answer.body.error.message).toContain('not UTF-8')
    expect((await sim.api('GET', '/v1/checks/external/latin-1')).status).toBe(404)
  })

  it('answers a body that is not the coding it claims with 400, naming the coding', async () => {
    const answer = await push('enc-bad', Buffer.from('\x1f\x8b not really gzip'), {'content-encoding': 'gzip'})
    expect(answer.status).toBe(400)
    expect(answer.body.error.message).toContain('gzip')
    expect(answer.body.error.message).toMatch(/^[\x20-\x7e]+$/)
  })
})

describe('Expect: 100-continue', () => {
  /** Announces a body of `size` bytes and sends it only if the server says to continue. */
  function announce(path: string, size: number, headers: Record<string, string>) {
    const {hostname, port} = new URL(sim.url)
    return new Promise<{status: number; continued: boolean; body: any}>((resolve, reject) => {
      let continued = false
      const announced = {'content-type': 'application/json', 'content-length': String(size), expect: '100-continue'}
      const req = request({host: hostname, port, method: 'PUT', path, headers: {...announced, ...headers}})
      req.on('continue', () => {
        continued = true
        req.end(Buffer.alloc(size, ' '))
      })
      req.on('response', (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk))
        res.on('end', () => {
          resolve({status: res.statusCode!, continued, body: JSON.parse(text)})
          req.destroy()
        })
      })
      req.on('error', reject)
      req.flushHeaders()
    })
  }

  it('refuses an unauthenticated 1.2 MB upload with 401 before the client sends its body', async () => {
    const answer = await announce('/v1/checks/external/big', 1_200_000, {})
    expect(answer.status).toBe(401)
    expect(answer.continued).toBe(false)
  })

  it('refuses a read key with 403, and an announced body over 1 MiB with 413, before the body is sent', async () => {
    const read = await announce('/v1/checks/external/big', 1000, {authorization: 'Bearer tp_test_demo_read'})
    expect([read.status, read.continued]).toEqual([403, false])
    const big = await announce('/v1/checks/external/big', 1_200_000, auth)
    expect([big.status, big.continued, big.body.error.code]).toEqual([413, false, 'payload_too_large'])
  })

  it('tells an accepted request to send its body, and reads it', async () => {
    const answer = await announce('/v1/checks/external/continued', 10, auth)
    expect(answer.continued).toBe(true)
    // ten spaces: the body arrived and was read (an empty one is "the body is empty")
    expect(answer.status).toBe(400)
    expect(answer.body.error.message).toContain('Unexpected end of JSON input')
  })
})

describe('CORS', () => {
  const PAGE = 'http://localhost:5173'
  const preflight = (url: string, path: string, origin: string, method = 'PUT') =>
    rawRequest(url, 'OPTIONS', path, {
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type',
      },
    })

  it('lets any page read /v1/health and /v1/openapi.json, preflight included, without --cors', async () => {
    for (const path of ['/v1/health', '/v1/openapi.json']) {
      const fromPage = await rawRequest(sim.url, 'GET', path, {headers: {origin: 'https://docs.example'}})
      expect(fromPage.headers['access-control-allow-origin']).toBe('*')
      expect((await rawRequest(sim.url, 'GET', path)).headers['access-control-allow-origin']).toBe('*')
      const pre = await preflight(sim.url, path, 'https://docs.example', 'GET')
      expect(pre.status).toBe(204)
      expect(pre.headers['access-control-allow-origin']).toBe('*')
    }
  })

  it('gives the rest of the API no CORS headers without --cors, so browsers keep other origins out', async () => {
    const get = await rawRequest(sim.url, 'GET', '/v1/checks', {headers: {...auth, origin: PAGE}})
    expect(get.status).toBe(200)
    expect(get.headers['access-control-allow-origin']).toBeUndefined()
    const pre = await preflight(sim.url, '/v1/checks/external/x', PAGE)
    expect(pre.status).not.toBe(204)
    expect(pre.headers['access-control-allow-origin']).toBeUndefined()
  })

  describe('with --cors ORIGIN', () => {
    let cors: TestServer
    beforeAll(async () => {
      cors = await startTestServer({memory: true, serve: {cors: [PAGE]}})
    })
    afterAll(() => cors.close())

    it("answers that origin's preflight before auth, then its request, with the headers a page needs", async () => {
      const pre = await preflight(cors.url, '/v1/checks/external/c1', PAGE)
      expect(pre.status).toBe(204)
      expect(pre.headers).toMatchObject({'access-control-allow-origin': PAGE, vary: 'Origin'})
      expect(pre.headers['access-control-allow-methods']).toContain('PUT')
      expect(pre.headers['access-control-allow-headers']).toContain('authorization')
      const put = await rawRequest(cors.url, 'PUT', '/v1/checks/external/c1', {
        headers: {...auth, origin: PAGE, 'content-type': 'application/json'},
        body: JSON.stringify(checkWith([['a', 1, 5]])),
      })
      expect(put.status).toBe(201)
      expect(put.headers['access-control-allow-origin']).toBe(PAGE)
      expect(put.headers['access-control-expose-headers']).toContain('X-Tablepay-Push-Result')
    })

    it('still asks that origin for a key: only the preflight goes without one', async () => {
      const get = await rawRequest(cors.url, 'GET', '/v1/checks', {headers: {origin: PAGE}})
      expect(get.status).toBe(401)
      expect(get.headers['access-control-allow-origin']).toBe(PAGE)
    })

    it('gives another origin nothing', async () => {
      const pre = await preflight(cors.url, '/v1/checks/external/c1', 'http://evil.example')
      expect(pre.status).not.toBe(204)
      expect(pre.headers['access-control-allow-origin']).toBeUndefined()
      const get = await rawRequest(cors.url, 'GET', '/v1/checks', {headers: {...auth, origin: 'http://evil.example'}})
      expect(get.headers['access-control-allow-origin']).toBeUndefined()
    })
  })

  it('lets that origin read Retry-After and the rate limit of a 429, to back off', async () => {
    const limited = await startTestServer({memory: true, serve: {cors: [PAGE], rateLimit: 1, rateLimitClock: () => 0}})
    try {
      const get = () => rawRequest(limited.url, 'GET', '/v1/locations', {headers: {...auth, origin: PAGE}})
      expect((await get()).status).toBe(200)
      const refused = await get()
      expect([refused.status, refused.headers['retry-after']]).toEqual([429, '1'])
      const exposed = String(refused.headers['access-control-expose-headers']).split(', ')
      expect(exposed).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']))
      expect(exposed).toContain('X-Tablepay-Fault')
    } finally {
      await limited.close()
    }
  })

  it('with --cors *, answers every origin', async () => {
    const any = await startTestServer({memory: true, serve: {cors: ['*']}})
    try {
      const pre = await preflight(any.url, '/v1/webhook-endpoints', 'https://pos.example', 'POST')
      expect([pre.status, pre.headers['access-control-allow-origin']]).toEqual([204, '*'])
      const get = await rawRequest(any.url, 'GET', '/v1/locations', {headers: {...auth, origin: 'https://pos.example'}})
      expect([get.status, get.headers['access-control-allow-origin']]).toEqual([200, '*'])
    } finally {
      await any.close()
    }
  })
})

describe('error messages', () => {
  it('quote a Content-Type back only when it is plain text', async () => {
    const put = (type: string) =>
      rawRequest(sim.url, 'PUT', '/v1/checks/external/ct', {headers: {...auth, 'content-type': type}, body: '{}'})
    expect((await put('text/plain')).body.error.message).toContain('(got "text/plain")')
    const binary = await put('text/\xffplain')
    expect(binary.status).toBe(415)
    expect(binary.body.error.message).toMatch(/^[\x20-\x7e]+$/)
  })
})
