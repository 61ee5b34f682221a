import Stripe from 'stripe'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {cliFor} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'

const stripe = new Stripe('sk_test_unused')
let server: ApiServer
let receiver: Awaited<ReturnType<typeof startReceiver>>
let refusing: Awaited<ReturnType<typeof startReceiver>>
beforeAll(async () => {
  ;[server, receiver, refusing] = await Promise.all([startApiServer(), startReceiver(), startReceiver(() => 500)])
})
afterAll(() => Promise.all([server.stop(), receiver.close(), refusing.close()]))

const cli = (args: string[]) => cliFor(server).cli(args)
const json = (args: string[]) => cliFor(server).json(args)
const endpointFor = async (target: typeof receiver, types = 'check.created') => {
  const endpoint = await json(['webhooks', 'create', '--forward-to', target.url, '-e', types])
  target.verifyWith(endpoint.secret)
  return endpoint
}
const push = (id: string) => json(['checks', 'push', id, '-f', 'fixtures/checks/open.json'])

describe('webhooks rotate-secret|update|recover|chaos, events resend', () => {
  it('rotate-secret prints the new secret once, with how long the old one still signs', async () => {
    const endpoint = await endpointFor(receiver)
    const {code, stdout} = await cli(['webhooks', 'rotate-secret', endpoint.id, '--expire-after', '1h'])
    expect(code).toBe(0)
    const secret = stdout.match(/New signing secret: (whsec_\w+)/)![1]!
    receiver.verifyWith(secret)
    expect(stdout).toContain('The old secret signs beside it for 1h more on the scheduler clock')
    const before = receiver.received.length
    await push('rot-1')
    await receiver.waitFor(before + 1)
    const request = receiver.received[before]!
    for (const key of [secret, endpoint.secret])
      expect(() =>
        stripe.webhooks.constructEvent(request.body, request.headers['x-tablepay-signature'] as string, key),
      ).not.toThrow()
    const rotated = await json(['webhooks', 'rotate-secret', endpoint.id, '--expire-after', '0'])
    expect(rotated.secret).toMatch(/^whsec_/)
    receiver.verifyWith(rotated.secret)
    expect((await cli(['webhooks', 'rotate-secret', endpoint.id, '--expire-after', '2d'])).code).toBe(2)
    // whole seconds, as the API takes them: 1ms would otherwise end the old secret at once
    const fraction = await cli(['webhooks', 'rotate-secret', endpoint.id, '--expire-after', '1ms'])
    expect([fraction.code, fraction.stderr]).toEqual([2, expect.stringContaining('"1ms" is not whole seconds')])
    await json(['webhooks', 'delete', endpoint.id])
  })

  it('update changes only what is given', async () => {
    const endpoint = await endpointFor(receiver)
    const updated = await json(['webhooks', 'update', endpoint.id, '-e', 'check.closed', '--description', 'till'])
    expect(updated).toMatchObject({
      id: endpoint.id,
      url: receiver.url,
      event_types: ['check.closed'],
      description: 'till',
    })
    expect((await cli(['webhooks', 'update', endpoint.id, '--description', 'x'])).stdout).toContain(
      'Events: check.closed',
    )
    expect((await cli(['webhooks', 'update', endpoint.id])).code).toBe(2)
    await json(['webhooks', 'delete', endpoint.id])
    // and its help says so: no default for what is left as it is
    const help = (await cli(['webhooks', 'update', '--help'])).stdout
    expect(help).toContain('The event types to receive instead')
    expect(help).not.toContain('Default: all')
  })

  it("chaos's usage gives the three settings together, and --off alone", async () => {
    const usage = (await cli(['webhooks', 'chaos', '--help'])).stdout.split('\n\n')[1]!
    expect(usage.replaceAll(/\s+/g, ' ')).toBe(
      'USAGE $ tablepay webhooks chaos ID [--duplicate P] [--reorder DURATION] [--seed N] [FLAGS] ' +
        '$ tablepay webhooks chaos ID --off [FLAGS]',
    )
  })

  it('events resend to an endpoint whose chaos holds the attempt back says when it is due, without waiting for it', async () => {
    const endpoint = await endpointFor(receiver)
    const check = await push('resend-held')
    const event = (await json(['events', 'list', '-e', 'check.created'])).data.find(
      (e: {data: {id: string}}) => e.data.id === check.id,
    )
    // a reorder window of an hour: seed 1 draws a wait of minutes for the resent delivery's attempt
    await json(['webhooks', 'chaos', endpoint.id, '--reorder', '1h', '--seed', '1'])
    const {code, stdout} = await cli(['events', 'resend', event.id, '--endpoint', endpoint.id])
    expect(code).toBe(0)
    const held =
      /Attempt queued, due in (\S+) on the scheduler clock: the endpoint's delivery chaos holds it back\. `tablepay clock advance \1` makes it now\./.exec(
        stdout,
      )
    expect(held, stdout).not.toBeNull()
    await json(['webhooks', 'delete', endpoint.id])
  })

  it('events resend makes one new delivery; to an endpoint without the type it says how to add it', async () => {
    const endpoint = await endpointFor(receiver)
    const check = await push('resend-1')
    const event = (await json(['events', 'list', '-e', 'check.created'])).data.find(
      (e: {data: {id: string}}) => e.data.id === check.id,
    )
    const delivery = await json(['events', 'resend', event.id, '--endpoint', endpoint.id])
    expect(delivery).toMatchObject({object: 'delivery', event_id: event.id, endpoint_id: endpoint.id})
    const payments = await endpointFor(receiver, 'payment.succeeded')
    const refused = await cli(['events', 'resend', event.id, '--endpoint', payments.id])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('Code: event_type_not_subscribed')
    expect(refused.stderr).toContain('tablepay webhooks update')
    await json(['webhooks', 'delete', endpoint.id])
    await json(['webhooks', 'delete', payments.id])
  })

  it('events resend waits for the first attempt and prints how the receiver answered; a refused one exits 1', async () => {
    const endpoint = await endpointFor(receiver)
    const check = await push('resend-wait')
    const event = (await json(['events', 'list', '-e', 'check.created'])).data.find(
      (e: {data: {id: string}}) => e.data.id === check.id,
    )
    const shown = await cli(['events', 'resend', event.id, '--endpoint', endpoint.id])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(/^dlv_\w+ {2}succeeded {2}check\.created/)
    expect(shown.stdout).toMatch(/\n\s*1 .* 200 /)
    expect(shown.stdout).not.toContain('No attempts yet')
    const resent = await json(['events', 'resend', event.id, '--endpoint', endpoint.id])
    expect(resent).toMatchObject({status: 'succeeded', attempted: true, attempts: [{attempt: 1, status_code: 200}]})

    const down = await endpointFor(refusing)
    const refused = await cli(['events', 'resend', event.id, '--endpoint', down.id])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toContain('Attempt #1 failed (500)')
    const refusedJson = await cliFor(server).cli(['events', 'resend', event.id, '--endpoint', down.id, '--json'])
    expect(refusedJson.code).toBe(1)
    expect(JSON.parse(refusedJson.stdout)).toMatchObject({status: 'pending', attempts: [{status_code: 500}]})
    await json(['webhooks', 'delete', endpoint.id])
    await json(['webhooks', 'delete', down.id])
  })

  it('recover --since sends again what failed, and says how many', async () => {
    const endpoint = await endpointFor(refusing)
    const before = refusing.received.length
    await push('recover-1')
    await refusing.waitFor(before + 1)
    const {code, stdout} = await cli(['webhooks', 'recover', endpoint.id, '--since', '1h'])
    expect(code).toBe(0)
    // every check.created of the last hour that this endpoint has not had: this file's pushes so far
    const count = Number(
      stdout.match(new RegExp(`queued (\\d+) events? since \\S+ for ${endpoint.id}, oldest first\\.`))![1],
    )
    expect(count).toBeGreaterThanOrEqual(1)
    await refusing.waitFor(before + 1 + count)
    await json(['webhooks', 'delete', endpoint.id])
  })

  it('chaos sets, shows and ends the chaos of an endpoint, with the seed that repeats it', async () => {
    const endpoint = await endpointFor(receiver)
    const set = await cli(['webhooks', 'chaos', endpoint.id, '--duplicate', '0.3', '--reorder', '10s', '--seed', '42'])
    expect(set.stdout).toContain(`${endpoint.id}: delivery chaos: duplicate 0.3, reorder window 10s, seed 42`)
    expect(await json(['webhooks', 'chaos', endpoint.id])).toEqual({
      object: 'webhook_chaos',
      endpoint_id: endpoint.id,
      enabled: true,
      duplicate: 0.3,
      reorder_window_s: 10,
      seed: 42,
    })
    expect((await json(['webhooks', 'chaos', endpoint.id, '--duplicate', '1'])).seed).toEqual(expect.any(Number))
    expect((await cli(['webhooks', 'chaos', endpoint.id, '--off'])).stdout).toContain('no delivery chaos')
    expect((await cli(['webhooks', 'chaos', endpoint.id, '--duplicate', '2'])).code).toBe(2)
    const seedAlone = await cli(['webhooks', 'chaos', endpoint.id, '--seed', '5'])
    expect([seedAlone.code, seedAlone.stderr.includes('--seed needs --duplicate or --reorder')]).toEqual([2, true])
    await json(['webhooks', 'delete', endpoint.id])
  })

  it("deliveries get shows the first line of a failed attempt's answer", async () => {
    const endpoint = await endpointFor(refusing)
    const before = refusing.received.length
    await push('answer-1')
    await refusing.waitFor(before + 1)
    const [delivery] = (await json(['deliveries', 'list', '--endpoint', endpoint.id])).data
    await expect
      .poll(async () => (await cli(['deliveries', 'get', delivery.id])).stdout)
      .toMatch(/receiver answered 500 {2}"ok"/)
    await json(['webhooks', 'delete', endpoint.id])
  })
})
