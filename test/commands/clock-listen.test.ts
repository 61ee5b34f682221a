import {afterEach, describe, expect, it} from 'vitest'
import {startServeFlags} from '../helpers/api-server.js'
import {cliFor, runCommand} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup(respond?: Parameters<typeof startReceiver>[0], serveArgs: string[] = []) {
  const [server, receiver] = await Promise.all([startServeFlags(serveArgs), startReceiver(respond)])
  cleanup.push(
    () => server.stop(),
    () => receiver.close(),
  )
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

  it('refuses a DURATION it cannot read, of zero or past ten years, with exit 2, saying how to write one', async () => {
    const {cli} = await setup()
    for (const [duration, says] of [
      ['2 hours', '"2 hours" is not a duration: write it like 90,'],
      ['0s', '"0s" is not a duration above zero: write it like 90, 45s, 5m, 2h, 1d or 1h30m.'],
      ['3651d', '"3651d" is longer than 3650d, the most the clock advances at once.'],
    ]) {
      const {code, stderr} = await cli(['clock', 'advance', duration!])
      expect(code).toBe(2)
      expect(stderr.replace(/\s*›\s*/g, ' ')).toContain(says)
    }
  })
})

describe('serve webhook flags', () => {
  it('--retry-schedule and --disable-after: two waits, then dead, then the endpoint is disabled', async () => {
    const {receiver, json, push, register} = await setup(
      () => 500,
      ['--retry-schedule', '2m,5m', '--disable-after', '1'],
    )
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
    const {cli, register} = await setup(() => 'hang', ['--receiver-timeout', '300ms'])
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
    const {code, stderr} = await runCommand(['serve', '--memory', '--port', '0', '--retry-schedule', '1s,soon'])
    expect(code).toBe(2)
    expect(stderr).toContain('--retry-schedule: ')
    expect(stderr).toContain('"soon" is not a duration')
    const zero = await runCommand(['serve', '--memory', '--port', '0', '--retry-schedule', '1s,0s'])
    expect(zero.code).toBe(2)
    expect(zero.stderr).toContain('--retry-schedule: "0s" is not a duration above zero: write it like 90,')
  })
})
