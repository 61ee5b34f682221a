import {createServer, type RequestListener, type Server} from 'node:http'
import {connect} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Listener, listenOn} from '../../src/server/listen.js'
import {startServer} from '../../src/server/start.js'
import {startSimulator} from '../../src/testing.js'

let holder: Server
let heldPort: number
beforeAll(async () => {
  holder = createServer((_req, res) => res.end('{"status": "ok"}'))
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  heldPort = (holder.address() as {port: number}).port
})
afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())))

describe('an explicit port', () => {
  it('that another program holds makes startServer fail naming it, instead of moving to another port', async () => {
    const refusal = new RegExp(`port ${heldPort} on 127\\.0\\.0\\.1: it is in use.*--port 0`)
    await expect(startServer({port: heldPort, host: '127.0.0.1'})).rejects.toThrow(refusal)
  })

  it('that another program holds makes startSimulator fail too, naming its own remedy', async () => {
    await expect(startSimulator({port: heldPort})).rejects.toThrow(
      new RegExp(`port ${heldPort}.*startSimulator\\(\\{port: 0\\}\\)`),
    )
  })

  it('that is free is taken exactly, and port 0 takes a free one', async () => {
    const first = await startServer({port: 0, host: '127.0.0.1'})
    const port = Number(new URL(first.url).port)
    await first.close()
    const again = await startServer({port, host: '127.0.0.1'})
    try {
      expect(again.url).toBe(`http://127.0.0.1:${port}`)
      expect((await fetch(`${again.url}/v1/health`)).status).toBe(200)
    } finally {
      await again.close()
    }
  })
})

describe('close()', () => {
  it('ends a keep-alive connection a client holds open, rather than waiting for the client to drop it', async () => {
    const server = await startServer({port: 0, host: '127.0.0.1'})
    // fetch keeps its connection for 4 s after the answer; close must not wait for that
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200)
    const started = Date.now()
    await server.close()
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('ends a connection that has sent no request yet (fetch opens one after a stream it aborted), rather than waiting for its client', async () => {
    const server = await startServer({port: 0, host: '127.0.0.1'})
    const {port} = new URL(server.url)
    // what fetch leaves behind once a stream it read is aborted: a spare connection on which nothing is sent
    const spare = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => spare.once('connect', resolve))
    const hungUp = new Promise((resolve) => spare.once('close', resolve))
    spare.on('error', () => {})
    // accepted by now: the server takes pending connections in order, and this later one was answered
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200)

    // the client never leaves on its own: close resolves only if the server hangs up on it
    await server.close()
    await hungUp
    expect(spare.destroyed).toBe(true)
  })

  it('may be called twice, as a test and then its cleanup do', async () => {
    const server = await startServer({port: 0, host: '127.0.0.1'})
    await server.close()
    await expect(server.close()).resolves.toBeUndefined()
  })
})

describe('connections that keep the server waiting (docs/api.md, "HTTP details")', () => {
  const timeouts = {headersMs: 300, requestMs: 600, idleMs: 200}
  let listener: Listener
  let port: number
  beforeAll(async () => {
    const echo: RequestListener = (req, res) => void req.resume().on('end', () => res.end('ok'))
    listener = await listenOn(0, '127.0.0.1', echo, timeouts)
    port = Number(new URL(listener.url).port)
  })
  afterAll(() => listener.close())

  /**
   * Opens a connection, sends `opening`, then `drip` every 50 ms if given (a client that sends too slowly);
   * resolves with what came back once the server closed it, and when.
   */
  const closedAfter = (opening: string, drip?: string) =>
    new Promise<{answer: string; ms: number}>((resolve) => {
      const started = performance.now()
      const socket = connect(port, '127.0.0.1')
      let answer = ''
      const dripping = drip === undefined ? undefined : setInterval(() => socket.write(drip), 50)
      socket.on('data', (chunk) => (answer += chunk))
      socket.on('error', () => {})
      socket.on('close', () => {
        clearInterval(dripping)
        resolve({answer, ms: performance.now() - started})
      })
      if (opening !== '') socket.write(opening)
    })

  /** An answer that Node's parser caused: its status, the error body's code and the request id in both. */
  const refusal = (answer: string) => {
    const [head, body] = answer.split('\r\n\r\n')
    const id = /\r\nX-Request-Id: (req_\w+)\r\n/i.exec(head!)?.[1]
    const {error} = JSON.parse(body!) as {error: {code: string; request_id: string; message: string}}
    expect(error.request_id).toBe(id)
    expect(error.message).toEqual(expect.any(String))
    return [Number(head!.split(' ')[1]), error.code]
  }

  it('one that sends nothing is answered 408 and closed once the head is overdue', async () => {
    const {answer, ms} = await closedAfter('')
    expect(refusal(answer)).toEqual([408, 'request_timeout'])
    expect(ms).toBeGreaterThanOrEqual(timeouts.headersMs)
  })

  it('one that sends its head a line at a time (slowloris) is answered 408 and closed', async () => {
    const {answer, ms} = await closedAfter('GET /v1/health HTTP/1.1\r\n', 'X-A: b\r\n')
    expect(refusal(answer)).toEqual([408, 'request_timeout'])
    expect(ms).toBeGreaterThanOrEqual(timeouts.headersMs)
  })

  it('one that sends its body a byte at a time is answered 408 and closed once the request is overdue', async () => {
    const {answer, ms} = await closedAfter('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n', 'a')
    expect(refusal(answer)).toEqual([408, 'request_timeout'])
    expect(ms).toBeGreaterThanOrEqual(timeouts.requestMs)
  })

  it('what Node cannot read is answered with the error body and a request id, and closed', async () => {
    const answers = await Promise.all([
      closedAfter(`${'A'.repeat(5000)} / HTTP/1.1\r\nHost: x\r\n\r\n`),
      closedAfter('GET / HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\u0001b\r\n\r\n'),
      closedAfter('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'),
      closedAfter(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`),
      // a body Node cannot read, while its request is being answered: refused at once
      closedAfter('POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'),
    ])
    expect(answers.map(({answer}) => refusal(answer))).toEqual([
      [400, 'malformed_request'],
      [400, 'malformed_request'],
      [400, 'malformed_request'],
      [431, 'headers_too_large'],
      [400, 'malformed_request'],
    ])
  })

  it('a HEAD that Node cannot read is answered with the refusal’s status and headers but no body', async () => {
    const answers = await Promise.all([
      // refused after its head, once Node made the request
      closedAfter('HEAD / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n'),
      closedAfter('HEAD / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'),
      closedAfter(`HEAD / HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`),
    ])
    // a body after the head would be read as a next answer: a client reports a parse error, not the refusal
    expect(answers.map(({answer}) => [answer.split(' ')[1], answer.endsWith('\r\n\r\n')])).toEqual([
      ['400', true],
      ['400', true],
      ['431', true],
    ])
    for (const {answer} of answers) expect(answer).toMatch(/\r\nx-request-id: req_\w+\r\n/)
    // a GET refused behind a HEAD in one packet still gets its body
    const behind = await closedAfter(
      'HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n',
    )
    expect(refusal(behind.answer.slice(behind.answer.indexOf('HTTP/1.1 400')))).toEqual([400, 'malformed_request'])
  })

  it('the requests before one Node cannot read are answered first, in order, then the refusal', async () => {
    const ok = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'
    const unreadable = 'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n'
    // two pipelined in one packet, the unreadable one parsed while the first is still being answered
    const answered = async (opening: string, drip?: string) => {
      const answers = (await closedAfter(opening, drip)).answer.split(/(?=HTTP\/1\.1 \d{3} )/)
      return answers.map((answer) => (answer.endsWith('ok') ? 'ok' : refusal(answer)))
    }
    expect(await answered(ok + ok + unreadable)).toEqual(['ok', 'ok', [400, 'malformed_request']])
    // and on a kept-alive connection, sent after an answer came back whole
    expect(await answered(ok, unreadable)).toEqual(['ok', [400, 'malformed_request']])
  })

  it('an HTTP/1.1 request without Host, or one with two, is answered 400 with the error body and a request id; HTTP/1.0 needs none', async () => {
    const {answer} = await closedAfter('GET / HTTP/1.1\r\n\r\n')
    expect(refusal(answer)).toEqual([400, 'malformed_request'])
    expect(JSON.parse(answer.split('\r\n\r\n')[1]!).error.message).toContain('needs a Host header')
    expect((await closedAfter('GET / HTTP/1.0\r\n\r\n')).answer).toMatch(/ok$/)
    // two, in any version: which one names the server?
    const two = await closedAfter('GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n')
    expect(refusal(two.answer)).toEqual([400, 'malformed_request'])
    expect(JSON.parse(two.answer.split('\r\n\r\n')[1]!).error.message).toContain('more than one Host')
  })

  it('a request with two Authorization lines is answered 400 with the error body, whichever key comes first', async () => {
    for (const keys of [
      'Authorization: Bearer a\r\nauthorization: Bearer b',
      'Authorization: Bearer a\r\nAuthorization: Bearer a',
    ]) {
      const {answer} = await closedAfter(`GET / HTTP/1.1\r\nHost: x\r\n${keys}\r\n\r\n`)
      expect(refusal(answer)).toEqual([400, 'malformed_request'])
      expect(JSON.parse(answer.split('\r\n\r\n')[1]!).error.message).toContain('more than one Authorization')
    }
    expect((await closedAfter('GET / HTTP/1.0\r\nAuthorization: Bearer a\r\n\r\n')).answer).toMatch(/ok$/)
  })

  it('an Expect other than 100-continue is answered 417 with the error body, echoing the request id', async () => {
    const {answer} = await closedAfter(
      'POST / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nX-Request-Id: mine\r\nContent-Length: 2\r\n\r\n{}',
    )
    const [head, body] = answer.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1.1 417 Expectation Failed\r\n/)
    expect(head).toMatch(/\r\nx-request-id: mine\r\n/i)
    expect(JSON.parse(body!).error).toMatchObject({code: 'expectation_failed', request_id: 'mine'})
  })

  it('an Expect naming 100-continue and another expectation is answered 417 too, before the body is asked for', async () => {
    // Node joins two Expect lines, and takes any value naming 100-continue for it
    for (const expectation of ['Expect: 100-continue, foo', 'Expect: foo\r\nExpect: 100-Continue']) {
      const {answer} = await closedAfter(`POST / HTTP/1.1\r\nHost: x\r\n${expectation}\r\nContent-Length: 2\r\n\r\n`)
      expect(answer).not.toContain('100 Continue')
      expect(refusal(answer)).toEqual([417, 'expectation_failed'])
    }
  })

  it('a kept-alive connection that sends no next request is closed', async () => {
    const {answer, ms} = await closedAfter('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1.1 200 [^]*\r\n\r\nok$/)
    // within its idle time, and the request's, of the answer: not Node's 5 s default
    expect(ms).toBeLessThan(timeouts.requestMs + timeouts.idleMs + 1000)
  })
})
