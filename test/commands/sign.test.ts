import {readFileSync} from 'node:fs'
import {readFile, rm, writeFile} from 'node:fs/promises'
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import {type AddressInfo, createServer as createNetServer} from 'node:net'
import {join} from 'node:path'
import Stripe from 'stripe'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {parseSignatureHeader, verifySignature} from '../../src/index.js'
import {startApiServer} from '../helpers/api-server.js'
import {checkWith} from '../helpers/checks.js'
import {ROOT, runCli, runCommand, startCommand, WRITE_KEY} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'
import {makeTempDir} from '../helpers/simulator.js'
import {stderrAsTerminal} from '../helpers/terminal.js'

const SECRET = 'whsec_test_5f2b9c0e8a7d4b1c'
const PAYLOAD = 'fixtures/checks/open.json'
const RAW = readFileSync(join(ROOT, PAYLOAD))
const NOW = 1_700_000_000

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  )
}

/** `sign` of the test payload with SECRET, forwarded to `target`. */
const forwardTo = (target: string, ...more: string[]) =>
  runCommand(['sign', '-s', SECRET, '-p', PAYLOAD, '--forward-to', target, ...more])

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()))
}

describe('sign', () => {
  it("prints a header for the file's bytes that Stripe's constructEvent and verifySignature accept", async () => {
    const {code, stdout} = await runCli(['sign', '--secret', SECRET, '--payload', PAYLOAD, '--timestamp', String(NOW)])
    expect(code).toBe(0)
    const header = stdout.trimEnd()
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/)
    expect(Stripe.webhooks.constructEvent(RAW, header, SECRET, 300, undefined, NOW * 1000)).toEqual(
      JSON.parse(RAW.toString()),
    )
    expect(verifySignature(RAW, header, SECRET, {now: NOW})).toEqual({valid: true, timestamp: NOW})
  })

  it('signs stdin with the secret from TABLEPAY_WEBHOOK_SECRET and the current time by default', async () => {
    const before = Math.floor(Date.now() / 1000)
    const {code, stdout} = await runCommand(['sign', '--json'], {
      env: {TABLEPAY_WEBHOOK_SECRET: SECRET},
      input: RAW.toString(),
    })
    expect(code).toBe(0)
    const {header} = JSON.parse(stdout) as {header: string}
    const {timestamp} = parseSignatureHeader(header)
    expect(timestamp).toBeGreaterThanOrEqual(before)
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
    expect(verifySignature(RAW, header, SECRET).valid).toBe(true)
  })

  it('without a secret, exits 2 (a wrong command line) and says where to put one, on the lean path too', async () => {
    for (const {code, stderr} of [await runCommand(['sign', '-p', PAYLOAD]), await runCli(['sign', '-p', PAYLOAD])]) {
      expect(code).toBe(2)
      expect(stderr).toContain('TABLEPAY_WEBHOOK_SECRET')
      expect(stderr).toContain('missing_secret')
    }
    const json = await runCli(['sign', '-p', PAYLOAD, '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout).error.code).toBe('missing_secret')
  })

  it('refuses an empty payload, as checks push refuses empty input: exit 2, missing_input, on the lean path too', async () => {
    const dir = await makeTempDir()
    try {
      const file = join(dir, 'empty.json')
      await writeFile(file, '')
      // nothing on stdin (`< /dev/null`), only a newline (`echo "$BODY"` with BODY unset), an empty file
      const cases: [args: string[], input: string, source: string][] = [
        [[], '', 'stdin'],
        [[], '\n', 'stdin'],
        [['-p', file], '', file],
      ]
      for (const [args, input, source] of cases) {
        const argv = ['sign', '-s', SECRET, '--json', ...args]
        for (const {code, stdout} of [await runCommand(argv, {input}), await runCli(argv, {input})]) {
          expect(code).toBe(2)
          expect(JSON.parse(stdout).error).toEqual({
            code: 'missing_input',
            message: `${source} is empty: pass --payload FILE, or pipe the body on stdin.`,
          })
        }
      }
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
})

describe('sign --forward-to', () => {
  // A receiver as a user would write one: raw body, verifySignature, 400 with the reason when refused.
  let receiver: Server
  let url: string
  let received: {method?: string; headers: IncomingHttpHeaders; body: Buffer}[]

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const body = Buffer.concat(chunks)
        received.push({method: req.method, headers: req.headers, body})
        if (req.url === '/moved') return res.writeHead(308, {Location: '/hooks'}).end()
        const result = verifySignature(body, req.headers['x-tablepay-signature'], SECRET)
        res.writeHead(result.valid ? 204 : 400).end(result.valid ? undefined : result.reason)
      })
    })
    url = await listen(receiver)
  })

  beforeEach(() => {
    received = []
  })

  afterAll(() => close(receiver))

  it("sends the payload signed, as JSON, and prints the receiver's status", async () => {
    const {code, stdout} = await forwardTo(`${url}/hooks`)
    expect(code).toBe(0)
    expect(stdout).toContain(`${url}/hooks answered 204 No Content`)
    expect(received).toHaveLength(1)
    expect(received[0]).toMatchObject({method: 'POST', headers: {'content-type': 'application/json'}, body: RAW})
    expect(stdout.split('\n')[0]).toBe(received[0]!.headers['x-tablepay-signature'])
  })

  it('a payload that is not an event goes without the event headers, and stderr says so', async () => {
    const {code, stderr} = await forwardTo(`${url}/hooks`)
    expect(code).toBe(0)
    expect(stderr).toContain('The payload is not an event')
    expect(stderr).toContain('`tablepay events get ID --json`')
    expect(received[0]!.headers).toMatchObject({
      'user-agent': 'tablepay-webhooks/1',
      'x-tablepay-delivery-attempt': '1',
    })
    expect(received[0]!.headers).not.toHaveProperty('x-tablepay-event-id')
    expect(received[0]!.headers).not.toHaveProperty('x-tablepay-event-type')
  })

  it("a URL's user:password@ goes as Basic authentication, as a delivery's does", async () => {
    const {code, stdout} = await forwardTo(url.replace('//', '//ops:p%40ss@') + '/hooks')
    expect(code).toBe(0)
    expect(stdout).toContain('answered 204 No Content')
    expect(received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('ops:p@ss').toString('base64')}`)
  })

  it.each(['data:text/plain,hi', 'file:///etc/passwd', 'localhost:3000/hooks'])(
    '--forward-to %s, no receiver URL, is a wrong command line: exit 2, nothing sent',
    async (target) => {
      const {code, stderr} = await forwardTo(target)
      expect(code).toBe(2)
      expect(stderr).toContain('is not an http(s) URL')
      expect(received).toEqual([])
    },
  )

  it('--post, the old name of --forward-to, still sends', async () => {
    const {code, stdout} = await runCommand(['sign', '-s', SECRET, '-p', PAYLOAD, '--post', `${url}/hooks`])
    expect(code).toBe(0)
    expect(stdout).toContain(`${url}/hooks answered 204 No Content`)
    expect(received).toHaveLength(1)
  })

  it('with --json, prints the header, the URL and the status', async () => {
    const {code, stdout} = await forwardTo(`${url}/hooks`, '--json')
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({header: expect.stringMatching(/^t=\d+,v1=/), url: `${url}/hooks`, status: 204})
  })

  it("exits 1 with the receiver's status and answer when it refuses", async () => {
    const {code, stderr} = await runCommand([
      'sign',
      '-s',
      'whsec_not_the_receivers',
      '-p',
      PAYLOAD,
      '--forward-to',
      `${url}/hooks`,
    ])
    expect(code).toBe(1)
    expect(stderr).toContain('answered 400 Bad Request: signature_mismatch')
    expect(stderr).toContain('receiver_rejected')
  })

  it('treats a redirect as a failure, as deliveries do, and does not follow it', async () => {
    const {code, stdout} = await forwardTo(`${url}/moved`, '--json')
    expect(code).toBe(1)
    expect(JSON.parse(stdout).error).toEqual({
      code: 'receiver_rejected',
      message: expect.stringContaining('answered 308 Permanent Redirect (redirect to /hooks)'),
      suggestions: ['Deliveries do not follow redirects: post to the final URL.'],
    })
    expect(received).toHaveLength(1)
  })

  it('in a process of its own, a receiver that refuses at once is an error message, not a crash', async () => {
    const args = ['sign', '-s', 'whsec_not_the_receivers', '-p', PAYLOAD, '--forward-to', `${url}/hooks`]
    const refused = await runCli(args)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('receiver_rejected')
    expect(refused.stderr).not.toMatch(/^\s+at /m)
    const json = await runCli([...args, '--json'])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout).error).toMatchObject({code: 'receiver_rejected'})
  })

  it('a refusal whose body breaks off is a refusal all the same, with the body as far as it came', async () => {
    // a 500 whose chunked body is malformed after its first chunk
    const raw = createNetServer((socket) =>
      socket.once('data', () =>
        socket.end('HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZZ\r\n'),
      ),
    )
    const rawUrl = await listen(raw as unknown as Server)
    try {
      const {code, stdout} = await forwardTo(`${rawUrl}/hooks`, '--json')
      expect(code).toBe(1)
      expect(JSON.parse(stdout).error).toMatchObject({
        code: 'receiver_rejected',
        message: `${rawUrl}/hooks answered 500 Oops: hello`,
      })
    } finally {
      await close(raw as unknown as Server)
    }
  })

  it('a receiver whose certificate Node does not trust gets a hint on how to trust it', async () => {
    const [cert, key] = await Promise.all(
      ['crt', 'key'].map((ext) => readFile(join(ROOT, 'test', 'fixtures', 'tls', `server.${ext}`))),
    )
    const tls = createHttpsServer({cert, key}, (_req, res) => res.end())
    const tlsUrl = (await listen(tls)).replace(/^http:/, 'https:')
    try {
      const {code, stdout} = await forwardTo(tlsUrl, '--json')
      expect(code).toBe(1)
      expect(JSON.parse(stdout).error).toMatchObject({
        code: 'connection_failed',
        message: expect.stringContaining('DEPTH_ZERO_SELF_SIGNED_CERT'),
        suggestions: [expect.stringContaining('NODE_EXTRA_CA_CERTS')],
      })
    } finally {
      await close(tls)
    }
  })

  it('says an https URL reached a plain HTTP receiver, and to give it with http://', async () => {
    const plain = createServer((req, res) => req.resume().on('end', () => res.end()))
    const url = (await listen(plain)).replace(/^http:/, 'https:')
    try {
      const {code, stdout} = await forwardTo(url, '--json')
      expect(code).toBe(1)
      expect(JSON.parse(stdout).error).toMatchObject({
        code: 'connection_failed',
        suggestions: ['The receiver answers plain HTTP, not TLS: give its URL with http://.'],
      })
    } finally {
      await close(plain)
    }
  })

  it('exits 1 with connection_failed when nothing listens', async () => {
    const closed = createServer()
    const deadUrl = await listen(closed)
    await close(closed)
    const {code, stderr} = await forwardTo(deadUrl)
    expect(code).toBe(1)
    expect(stderr).toContain('ECONNREFUSED')
    expect(stderr).toContain('connection_failed')
  })
})

describe('sign --forward-to, beside a real delivery', () => {
  it('sends every header a delivery of the same event carries, the event id and type from the payload', async () => {
    const server = await startApiServer()
    const receiver = await startReceiver()
    const dir = await makeTempDir()
    try {
      const api = (method: string, path: string, body: unknown) =>
        fetch(`${server.url}${path}`, {
          method,
          headers: {authorization: `Bearer ${WRITE_KEY}`, 'content-type': 'application/json'},
          body: JSON.stringify(body),
        })
      const created = await api('POST', '/webhook-endpoints', {url: receiver.url, event_types: ['check.created']})
      const {secret} = (await created.json()) as {secret: string}
      receiver.verifyWith(secret)
      expect((await api('PUT', '/checks/external/sign-forward-1', checkWith([['a', 1, 100]]))).status).toBe(201)
      await receiver.waitFor(1)
      const delivery = receiver.received[0]!
      const event = JSON.parse(delivery.body) as {id: string; type: string}

      const file = join(dir, 'event.json')
      await writeFile(file, delivery.body)
      const {code, stderr} = await runCommand(['sign', '-s', secret, '-p', file, '--forward-to', receiver.url])
      expect([code, stderr]).toEqual([0, ''])
      const forwarded = receiver.received[1]!
      expect(forwarded.body).toBe(delivery.body)
      // the real delivery's headers, all of them, the same but for the signature (its time is its own)
      const {'x-tablepay-signature': _, ...sent} = delivery.headers
      expect(forwarded.headers).toMatchObject(sent)
      expect(forwarded.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'tablepay-webhooks/1',
        'x-tablepay-event-id': event.id,
        'x-tablepay-event-type': 'check.created',
        'x-tablepay-delivery-attempt': '1',
      })
    } finally {
      // close() checks every request against the endpoint's secret with Stripe's constructEvent
      await receiver.close()
      await server.stop()
      await rm(dir, {recursive: true, force: true})
    }
  })
})

describe('sign --forward-to at a terminal', () => {
  it('shows a spinner on stderr while the receiver takes more than a second, and none with --json', async () => {
    // the receiver answers only once the spinner shows (or at once, for --json)
    const answers: ((status: number) => void)[] = []
    const receiver = await startReceiver(() => new Promise<number>((resolve) => answers.push(resolve)))
    // an event: a payload that is not one adds a notice on stderr
    const dir = await makeTempDir()
    const event = join(dir, 'event.json')
    await writeFile(event, JSON.stringify({id: 'evt_sign_spinner', object: 'event', type: 'check.created', data: {}}))
    const restore = stderrAsTerminal()
    try {
      const args = ['sign', '-s', SECRET, '-p', event, '--forward-to', receiver.url]
      const run = startCommand(args, {env: {NO_COLOR: ''}})
      await run.waitForStderr('Waiting for the receiver')
      answers.shift()!(200)
      const {code, stdout} = await run.done
      expect(code).toBe(0)
      expect(stdout).toContain(`${receiver.url} answered 200 OK`)

      const json = startCommand([...args, '--json'], {env: {NO_COLOR: ''}})
      await receiver.waitFor(2)
      answers.shift()!(200)
      const quiet = await json.done
      expect(quiet.code).toBe(0)
      expect(quiet.stderr).toBe('')
      expect(JSON.parse(quiet.stdout)).toMatchObject({url: receiver.url, status: 200})
    } finally {
      restore()
      await receiver.close()
      await rm(dir, {recursive: true, force: true})
    }
  })
})
