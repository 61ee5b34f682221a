import {createServer} from 'node:http'
import {type AddressInfo, createServer as createNetServer, type Socket} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {runCommand, WRITE_KEY} from '../helpers/cli.js'

// Another service on the port --url names: text for every route, a plain 500 for the checks
const other = createServer((req, res) => {
  req.resume()
  if (req.url?.startsWith('/v1/checks')) return res.writeHead(500, {'content-type': 'text/plain'}).end('boom')
  // a receiver's port: it takes POSTs to its own path only
  if (req.url?.startsWith('/v1/events')) return res.writeHead(405).end()
  res.writeHead(200, {'content-type': 'text/plain'}).end('ok')
})
let env: Record<string, string>
beforeAll(async () => {
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
  env = {TABLEPAY_URL: `http://127.0.0.1:${(other.address() as AddressInfo).port}`, TABLEPAY_API_KEY: WRITE_KEY}
})
afterAll(() => new Promise((resolve) => other.close(resolve)))

// oclif wraps the message: read it as one line
const oneLine = (text: string) => text.replace(/\s*\n[\s›]*/g, ' ')

describe('a --url that names another service', () => {
  it('says its answer is not the API and to check --url, instead of a JSON parse error', async () => {
    const {code, stderr} = await runCommand(['locations', 'list'], {env})
    expect(code).toBe(1)
    const said = oneLine(stderr)
    expect(said).toContain(`answered 200 with something that is not the tablepay API's JSON ("ok")`)
    expect(said).toContain('Check --url')
    expect(said).not.toContain('SyntaxError')
  })

  it('reports unexpected_answer in the error body with --json', async () => {
    const {code, stdout} = await runCommand(['locations', 'list', '--json'], {env})
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toMatchObject({error: {code: 'unexpected_answer'}})
  })

  it('says so without a key too, with the code a key meets, instead of asking for a key', async () => {
    const keyless = {TABLEPAY_URL: env.TABLEPAY_URL!}
    const {code, stdout, stderr} = await runCommand(['locations', 'list'], {env: keyless})
    expect(code).toBe(1)
    expect(oneLine(stderr)).toContain(`answered 200 with something that is not the tablepay API's JSON ("ok")`)
    expect(oneLine(stderr)).not.toContain('API key')
    const json = await runCommand(['locations', 'list', '--json'], {env: keyless})
    expect([json.code, JSON.parse(json.stdout).error.code]).toEqual([1, 'unexpected_answer'])
    expect(stdout).toBe('')
  })

  it('points a plain error page at --url too', async () => {
    const {code, stderr} = await runCommand(['checks', 'list'], {env})
    expect(code).toBe(1)
    const said = oneLine(stderr)
    expect(said).toContain('HTTP 500')
    expect(said).toContain('from http://127.0.0.1')
    expect(said).toContain('/v1/checks: boom')
    expect(said).toContain('Check --url')
  })

  it('says an error answer without a body had none, instead of ending on a colon', async () => {
    const {code, stderr} = await runCommand(['events', 'list'], {env})
    expect(code).toBe(1)
    expect(oneLine(stderr)).toMatch(
      /HTTP 405 Method Not Allowed from http:\/\/127\.0\.0\.1:\d+\/v1\/events\S* \(no body\)/,
    )
  })
})

describe('an https --url to a server that speaks plain HTTP, as tablepay serve does', () => {
  it('says it answered in plain HTTP and gives the http:// URL to pass instead', async () => {
    const plain = `127.0.0.1:${(other.address() as AddressInfo).port}`
    const {code, stderr} = await runCommand(['locations', 'list', '--url', `https://${plain}`], {env})
    expect(code).toBe(1)
    const said = oneLine(stderr)
    expect(said).toContain(`The server at https://${plain} answered in plain HTTP, not TLS`)
    expect(said).toContain(`(--url http://${plain})`)
    expect(said).toContain('Code: connection_failed')
  })
})

describe('a tablepay server behind a proxy that drops its X-Request-Id', () => {
  let server: ApiServer
  const proxy = createServer(async (req, res) => {
    const answer = await fetch(new URL(req.url!, new URL(server.url).origin))
    res.writeHead(answer.status, {'content-type': answer.headers.get('content-type') ?? 'text/plain'})
    res.end(await answer.text())
  })
  beforeAll(async () => {
    server = await startApiServer()
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  })
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve))
    await server.stop()
  })

  it('is known by its health answer: without a key it asks for one, not whether it is tablepay', async () => {
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    const {code, stdout} = await runCommand(['locations', 'list', '--json'], {env: {TABLEPAY_URL: url}})
    expect([code, JSON.parse(stdout).error.code]).toEqual([1, 'missing_api_key'])
  })
})

describe('a --url, with no key, where the health check learns something other than a running server', () => {
  let server: ApiServer
  beforeAll(async () => {
    server = await startApiServer()
  })
  afterAll(() => server.stop())

  it("a tablepay server's URL with a path: its health is 404 there, and the base URL to give instead", async () => {
    const base = new URL(server.url).origin
    const {code, stderr} = await runCommand(['locations', 'list', '--url', `${base}/foo/bar`], {env: {}})
    expect(code).toBe(1)
    const said = oneLine(stderr)
    expect(said).toContain(`a tablepay server answers, but its /v1/health is 404 there: give its base URL, ${base}`)
    expect(said).not.toContain('no server answers')
  })

  it('a port that takes connections and never answers: said so, not that no server answers', async () => {
    const sockets: Socket[] = []
    const silent = createNetServer((socket) => void sockets.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const {code, stderr} = await runCommand(['locations', 'list', '--url', url], {env: {}})
      expect(code).toBe(1)
      const said = oneLine(stderr)
      expect(said).toContain(`${url}: a server takes connections, but did not answer /v1/health within 1 s`)
      expect(said).not.toContain('no server answers')
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})
