import {afterEach, describe, expect, it} from 'vitest'
import {verifySignature} from '../../src/webhooks/signature.js'
import {cliFor, runCli, spawnRunning, startCliServer} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup(respond?: Parameters<typeof startReceiver>[0], serveArgs: string[] = []) {
  const [server, receiver] = await Promise.all([startCliServer(['--memory', '--seed', 'fixtures/seed.json', ...serveArgs]), startReceiver(respond)])
  cleanup.push(() => server.stop(), () => receiver.close())
  const {cli, json} = cliFor(server)
  /** Registers an endpoint for the receiver, whose deliveries must then all verify with Stripe too. */
  const register = async (args: string[] = []) => {
    const endpoint = await json(['webhooks', 'create', receiver.url, ...args])
    receiver.verifyWith(endpoint.secret)
    return endpoint
  }
  const push = (id: string) => json(['checks', 'push', id, '-f', 'fixtures/checks/open.json'])
  return {server, receiver, cli, json, push, register}
}

describe('clock advance', () => {
  it('runs the retries that fall due and says how many ran', async () => {
    const {receiver, cli, json, push, register} = await setup(() => 500)
    await register(['-e', 'check.created'])
    await push('c1')
    await receiver.waitFor(1)
    // the retry is due 1m after the first attempt was; the real seconds the CLI takes count too, hence the halves
    const early = await json(['clock', 'advance', '30s'])
    expect(early.attempts).toBe(0)
    const {code, stdout} = await cli(['clock', 'advance', '30s'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^Clock advanced 30s to \d{4}-\d\d-\d\d \d\d:\d\d:\d\d; 1 delivery attempt ran\.$/m)
    expect(receiver.received.map((r) => r.headers['x-tablepay-delivery-attempt'])).toEqual(['1', '2'])
    const clock = await json(['clock', 'advance', '1h30m'])
    expect(clock).toMatchObject({object: 'clock', attempts: 2})
    // the clock ends exactly DURATION after where it was, so the real time the attempts took is part of the offset, never added to it
    expect(clock.offset_seconds).toBeLessThanOrEqual(5460)
  })

  it('refuses a DURATION it cannot read with exit 2', async () => {
    const {cli} = await setup()
    const {code, stderr} = await cli(['clock', 'advance', '2 hours'])
    expect(code).toBe(2)
    expect(stderr).toContain('is not a duration above zero')
  })
})

describe('listen --forward-to', () => {
  it('registers an endpoint, prints its secret and each attempt, and removes the endpoint on Ctrl+C', async () => {
    const {server, receiver, json, push} = await setup()
    const listen = spawnRunning(['listen', '--forward-to', receiver.url, '--json'], server.env)
    const ready = JSON.parse((await listen.waitForOutput('\n')).split('\n')[0]!)
    receiver.verifyWith(ready.secret)
    expect(ready).toMatchObject({status: 'ready', url: receiver.url, secret: expect.stringMatching(/^whsec_/)})
    expect(ready.event_types).toHaveLength(8)
    const check = await push('l1')
    await receiver.waitFor(1)
    const [request] = receiver.received
    expect(verifySignature(request!.body, request!.headers['x-tablepay-signature'] as string, ready.secret)).toMatchObject({valid: true})
    const line = JSON.parse((await listen.waitForOutput('"attempt"')).split('\n')[1]!)
    expect(line).toMatchObject({endpoint_id: ready.endpoint_id, event_type: 'check.created', status_code: 200})
    expect(JSON.parse(request!.body).data.id).toBe(check.id)

    expect(await listen.kill('SIGINT')).toBe(0)
    expect(listen.stderr()).toContain(`Removed endpoint ${ready.endpoint_id}`)
    expect((await json(['webhooks', 'list'])).data).toEqual([])
  })

  it('with --keep leaves the endpoint registered, and prints a readable line per attempt', async () => {
    const {server, receiver, json, push} = await setup()
    const listen = spawnRunning(['listen', '-f', receiver.url, '-e', 'check.created', '--keep'], server.env)
    const banner = await listen.waitForOutput('Ctrl+C to stop.')
    receiver.verifyWith(banner.match(/Signing secret: (whsec_\w+)/)![1]!)
    expect(banner).toMatch(new RegExp(`Forwarding 1 event types to ${receiver.url} \\(endpoint we_\\w+\\)\\nSigning secret: whsec_\\w+`))
    await push('l2')
    expect(await listen.waitForOutput(' ms  #1 ')).toMatch(/check\.created\s+we_\w+  200\s+\d+ ms  #1 dlv_\w+/)
    expect(await listen.kill('SIGINT')).toBe(0)
    expect((await json(['webhooks', 'list'])).data).toHaveLength(1)
  })

  it('exits 1 with a clear message when the server stops under it', async () => {
    const {server, receiver} = await setup()
    const listen = spawnRunning(['listen', '-f', receiver.url], server.env)
    await listen.waitForOutput('Ctrl+C to stop')
    await server.stop()
    expect(await listen.exited).toBe(1)
    expect(listen.stderr()).toContain('closed the stream: it has probably stopped')
  })
})

describe('serve webhook flags', () => {
  it('--retry-schedule and --disable-after: two waits, then dead, then the endpoint is disabled', async () => {
    const {receiver, json, push, register} = await setup(() => 500, ['--retry-schedule', '2m,5m', '--disable-after', '1'])
    const endpoint = await register(['-e', 'check.created'])
    await push('s1')
    await receiver.waitFor(1)
    expect((await json(['clock', 'advance', '1m'])).attempts).toBe(0)
    expect((await json(['clock', 'advance', '1m'])).attempts).toBe(1)
    expect((await json(['clock', 'advance', '4m'])).attempts).toBe(0)
    expect((await json(['clock', 'advance', '1m'])).attempts).toBe(1)
    const [delivery] = (await json(['deliveries', 'list'])).data
    expect(delivery).toMatchObject({status: 'dead', next_attempt_at: null})
    expect(delivery.attempts).toHaveLength(3)
    expect((await json(['webhooks', 'list'])).data[0]).toMatchObject({id: endpoint.id, status: 'disabled'})
  })

  it('--time-scale runs the scheduler faster than real time: the 1-minute retry comes without advancing the clock', async () => {
    const {receiver, json, push, register} = await setup(() => 500, ['--time-scale', '600'])
    await register(['-e', 'check.created'])
    await push('s2')
    await receiver.waitFor(2)
    expect(receiver.received.slice(0, 2).map((r) => r.headers['x-tablepay-delivery-attempt'])).toEqual(['1', '2'])
    expect((await json(['clock', 'advance', '1s'])).time_scale).toBe(600)
  })

  it('--receiver-timeout bounds how long a receiver may take', async () => {
    const {receiver, cli, json, register} = await setup(() => 'hang', ['--receiver-timeout', '300ms'])
    const endpoint = await register()
    const {code, stdout} = await cli(['webhooks', 'ping', endpoint.id, '--json'])
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toMatchObject({succeeded: false, status_code: null, error: 'no answer within 300 ms'})
  })

  it('--strict-urls refuses plain http even for this machine', async () => {
    const {receiver, cli} = await setup(undefined, ['--strict-urls'])
    const {code, stderr} = await cli(['webhooks', 'create', receiver.url])
    expect(code).toBe(1)
    expect(stderr).toContain('must be an https URL (the server runs with --strict-urls)')
  })

  it('refuses a schedule it cannot read, naming the flag', async () => {
    const {code, stderr} = await runCli(['serve', '--memory', '--port', '0', '--retry-schedule', '1s,soon'])
    expect(code).toBe(2)
    expect(stderr).toContain('Parsing --retry-schedule')
    expect(stderr).toContain('"soon" is not a duration')
  })
})
