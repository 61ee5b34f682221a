import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {verifySignature} from '../../src/webhooks/signature.js'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {cliFor, spawnRunning} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'

let server: ApiServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
let failing: Awaited<ReturnType<typeof startReceiver>>
beforeAll(async () => {
  ;[server, receiver, failing] = await Promise.all([startApiServer(), startReceiver(), startReceiver(() => 500)])
})
afterAll(() => Promise.all([server.stop(), receiver.close(), failing.close()]))

const cli = (args: string[]) => cliFor(server).cli(args)
const json = (args: string[]) => cliFor(server).json(args)
type Receiver = Awaited<ReturnType<typeof startReceiver>>
/** Registers an endpoint for `target`, whose deliveries must then all verify with Stripe too. */
const endpointFor = async (target: Receiver, args: string[] = []) => {
  const endpoint = await json(['webhooks', 'create', target.url, ...args])
  target.verifyWith(endpoint.secret)
  return endpoint
}
const push = (id: string) => json(['checks', 'push', id, '-f', 'fixtures/checks/open.json'])

describe('webhooks create|list|delete|ping', () => {
  it('create prints the signing secret once; list shows the endpoint without it', async () => {
    const {code, stdout} = await cli(['webhooks', 'create', receiver.url, '-e', 'check.created,check.closed'])
    expect(code).toBe(0)
    const secret = stdout.match(/Signing secret: (whsec_\S+)/)?.[1]
    expect(secret).toBeDefined()
    receiver.verifyWith(secret!)
    expect(stdout).toContain('only time the secret is shown')
    const page = await json(['webhooks', 'list'])
    const listed = page.data.find((e: {url: string}) => e.url === receiver.url)
    expect(listed).toMatchObject({status: 'enabled', event_types: ['check.created', 'check.closed']})
    expect(listed.secret).toBeUndefined()
    expect((await cli(['webhooks', 'list'])).stdout).toMatch(
      new RegExp(`${listed.id}\\s+enabled\\s+check.created,check.closed\\s+${receiver.url}`),
    )
  })

  it('create without --events subscribes to every event type', async () => {
    const endpoint = await endpointFor(receiver)
    expect(endpoint.event_types).toHaveLength(8)
    expect(endpoint.secret).toMatch(/^whsec_/)
    // listed as "all", not as 8 types that make the table some 200 columns wide
    expect((await cli(['webhooks', 'list'])).stdout).toMatch(
      new RegExp(`${endpoint.id}\\s+enabled\\s+all \\(8\\)\\s+${receiver.url}\n`),
    )
  })

  it('create refuses an unknown event type before calling the server', async () => {
    const {code, stderr} = await cli(['webhooks', 'create', receiver.url, '-e', 'check.created,check.eaten'])
    expect(code).toBe(2)
    expect(stderr).toContain('unknown event type check.eaten')
  })

  it("create, update and listen report the server's refusal of a non-loopback http URL, naming the URL given, not the body's field, with its request id", async () => {
    const {id} = await endpointFor(receiver)
    const url = 'http://example.com/hooks'
    for (const args of [
      ['webhooks', 'create', url],
      ['webhooks', 'create', '--forward-to', url],
      ['webhooks', 'update', id, '--forward-to', url],
      ['listen', '--forward-to', url],
    ]) {
      const {code, stderr} = await cli(args)
      expect([args, code]).toEqual([args, 1])
      expect(stderr).toContain(`The receiver's URL ${url} was refused: must be an https URL`)
      expect(stderr).toContain('Use an https URL, or plain http to this machine')
      expect(stderr).not.toMatch(/Request body|- url:|Fix the fields/)
      expect(stderr).toContain('Code: validation_failed')
      expect(stderr).toMatch(/Request id: req_\w+/)
    }
    const {stdout} = await cli(['webhooks', 'update', id, '--forward-to', url, '--json'])
    expect(JSON.parse(stdout).error).toMatchObject({
      code: 'validation_failed',
      request_id: expect.stringMatching(/^req_/),
      details: [{path: 'url', message: expect.stringContaining('must be an https URL')}],
      suggestions: [expect.stringContaining('Use an https URL')],
    })
  })

  it("--json gives a server's refusal the next steps the human output gives", async () => {
    const human = await cli(['checks', 'get', 'chk_nope'])
    const {code, stdout} = await cli(['checks', 'get', 'chk_nope', '--json'])
    expect([human.code, code]).toEqual([1, 1])
    const {error} = JSON.parse(stdout)
    expect(error).toMatchObject({code: 'not_found', suggestions: [expect.stringContaining('tablepay checks list')]})
    expect(human.stderr).toContain(error.suggestions[0])
  })

  it('create with a URL that is not one, as its argument, is a wrong command line as with --forward-to; --json prints the error body', async () => {
    const {code, stdout} = await cli(['webhooks', 'create', 'ftp://x', '--json'])
    expect(code).toBe(2)
    expect(JSON.parse(stdout).error).toMatchObject({
      code: 'invalid_usage',
      message: expect.stringContaining('"ftp://x" is not an http(s) URL'),
    })
  })

  it('ping sends a signed ping the receiver verifies, and exits 0', async () => {
    const endpoint = await endpointFor(receiver, ['-e', 'claim.created'])
    const before = receiver.received.length
    const {code, stdout} = await cli(['webhooks', 'ping', endpoint.id])
    expect(code).toBe(0)
    expect(stdout).toMatch(new RegExp(`ok ${endpoint.id} answered 200 in \\d+ ms`))
    const request = receiver.received[before]!
    expect(JSON.parse(request.body).type).toBe('ping')
    expect(
      verifySignature(request.body, request.headers['x-tablepay-signature'] as string, endpoint.secret),
    ).toMatchObject({valid: true})
  })

  it('ping exits 1 and says what the receiver answered when it does not accept it', async () => {
    const endpoint = await endpointFor(failing)
    const {code, stdout} = await cli(['webhooks', 'ping', endpoint.id])
    expect(code).toBe(1)
    expect(stdout).toContain(`failed ${endpoint.id} answered 500`)
    const result = JSON.parse((await cli(['webhooks', 'ping', endpoint.id, '--json'])).stdout)
    expect(result).toMatchObject({succeeded: false, status_code: 500, endpoint_id: endpoint.id})
    await json(['webhooks', 'delete', endpoint.id])
  })

  it("ping shows the first line of a failed answer, as listen does, not the whole answer's escapes", async () => {
    const erring = createServer((req, res) => {
      req.resume()
      res.writeHead(500).end('\nInternal error: no handler\n    at route (app.js:12)\n')
    })
    await new Promise<void>((resolve) => erring.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(erring.address() as AddressInfo).port}/hooks`
      const endpoint = await json(['webhooks', 'create', url])
      const {code, stdout} = await cli(['webhooks', 'ping', endpoint.id])
      expect(code).toBe(1)
      expect(stdout).toContain('Its answer: "Internal error: no handler"\n')
      expect(stdout).not.toContain('app.js')
      await json(['webhooks', 'delete', endpoint.id])
    } finally {
      await new Promise((resolve) => erring.close(resolve))
    }
  })

  it('ping to a URL where nothing listens says to start the receiver', async () => {
    const closed = await startReceiver()
    await closed.close()
    const endpoint = await json(['webhooks', 'create', closed.url])
    const {code, stdout} = await cli(['webhooks', 'ping', endpoint.id])
    expect(code).toBe(1)
    expect(stdout).toContain('no answer after')
    expect(stdout).toContain("ECONNREFUSED\nNothing listens at the endpoint's URL")
    await json(['webhooks', 'delete', endpoint.id])
  })

  it('delete removes the endpoint; deleting it again is not_found', async () => {
    const endpoint = await endpointFor(receiver)
    expect(await json(['webhooks', 'delete', endpoint.id])).toEqual({
      id: endpoint.id,
      object: 'webhook_endpoint',
      deleted: true,
    })
    const page = await json(['webhooks', 'list', '--limit', '100'])
    expect(page.data.map((e: {id: string}) => e.id)).not.toContain(endpoint.id)
    const again = await cli(['webhooks', 'delete', endpoint.id])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('Code: not_found')
  })
})

describe('events list|get', () => {
  it('list shows the events of a push; get shows the envelope with the check as data', async () => {
    const check = await push('ev-1')
    const page = await json(['events', 'list', '--event-type', 'check.created'])
    const event = page.data.find((e: {data: {id: string}}) => e.data.id === check.id)
    expect(event).toMatchObject({type: 'check.created', object: 'event'})
    expect((await cli(['events', 'list'])).stdout).toMatch(new RegExp(`${event.id}\\s+check.created\\s+.+${check.id}`))
    expect(await json(['events', 'get', event.id])).toEqual(event)
    const {stdout} = await cli(['events', 'get', event.id])
    expect(stdout).toContain(`check.created  ${event.id}`)
    expect(stdout).toContain(`"id": "${check.id}"`)
  })
})

describe('deliveries list|get|retry|tail', () => {
  it('tail prints one line per attempt, and one JSON object per line with --json', async () => {
    const endpoint = await endpointFor(receiver, ['-e', 'check.updated'])
    const text = spawnRunning(['deliveries', 'tail', '--endpoint', endpoint.id], server.env)
    const lines = spawnRunning(['deliveries', 'tail', '--endpoint', endpoint.id, '--json'], server.env)
    await Promise.all([
      text.waitForStderr('Waiting for delivery attempts'),
      lines.waitForStderr('Waiting for delivery attempts'),
    ])
    await push('tail-1')
    await json(['checks', 'push', 'tail-1', '-f', 'fixtures/checks/updated.json'])
    const out = await lines.waitForOutput('\n')
    const attempt = JSON.parse(out.split('\n')[0]!)
    expect(attempt).toMatchObject({
      endpoint_id: endpoint.id,
      event_type: 'check.updated',
      attempt: 1,
      status_code: 200,
      error: null,
      delivery_status: 'succeeded',
    })
    expect(await text.waitForOutput('\n')).toMatch(
      new RegExp(`\\d\\d:\\d\\d:\\d\\d  check.updated\\s+${endpoint.id}  200\\s+\\d+ ms  #1 dlv_`),
    )
    expect(await Promise.all([text.stop(), lines.stop()])).toEqual([0, 0])
  })

  it('list filters by endpoint and status, get shows every attempt, retry makes one more', async () => {
    const endpoint = await endpointFor(failing, ['-e', 'check.created'])
    const arrived = failing.received.length
    await push('dl-1')
    await failing.waitFor(arrived + 1)
    const pending = await json(['deliveries', 'list', '--endpoint', endpoint.id, '--status', 'pending'])
    expect(pending.data).toHaveLength(1)
    const [delivery] = pending.data
    expect(delivery.attempts).toHaveLength(1)
    expect((await cli(['deliveries', 'list', '--endpoint', endpoint.id])).stdout).toMatch(
      new RegExp(`${delivery.id}\\s+check.created\\s+${endpoint.id}\\s+pending\\s+1\\s+500`),
    )
    const {stdout} = await cli(['deliveries', 'get', delivery.id])
    expect(stdout).toMatch(/1\s+\S+ \S+\s+\S+ \S+\s+500\s+\d+\s+receiver answered 500/)
    expect(stdout).toContain('Next attempt at')
    // the receiver refuses the retry too: exit 1, the delivery still printed
    const retried = await cli(['deliveries', 'retry', delivery.id, '--json'])
    expect(retried.code).toBe(1)
    expect(JSON.parse(retried.stdout)).toMatchObject({id: delivery.id, status: 'pending'})
    await failing.waitFor(arrived + 2)
    const attempts = failing.received.filter((r) => r.headers['x-tablepay-event-id'] === delivery.event_id)
    expect(attempts.map((r) => r.headers['x-tablepay-delivery-attempt'])).toEqual(['1', '2'])

    // a tail started now sees the next attempt only, not the delivery's history again
    const tail = spawnRunning(['deliveries', 'tail', '--endpoint', endpoint.id], server.env)
    await tail.waitForStderr('Waiting for delivery attempts')
    expect((await cli(['deliveries', 'retry', delivery.id, '--json'])).code).toBe(1)
    const lines = (await tail.waitForOutput(' #3 ')).trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /500\s+\d+ ms {2}#3 dlv_\w+ {2}receiver answered 500 {2}"ok" {2}→ retry in 30m on the scheduler clock \(at .+\)$/,
    )
    expect(await tail.stop()).toBe(0)
    expect((await json(['deliveries', 'list', '--endpoint', endpoint.id, '--status', 'succeeded'])).data).toHaveLength(
      0,
    )
  })
})
