import {readdir, readFile, stat} from 'node:fs/promises'
import {join} from 'node:path'
import Stripe from 'stripe'
import {afterEach, describe, expect, it} from 'vitest'
import {EVENT_TYPES} from '../../src/domain/constants.js'
import type {Seed} from '../../src/domain/seed-schema.js'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {onPostgres} from '../helpers/postgres.js'
import {OTHER_KEY, startTestServer, TEST_SEED, type TestServer} from '../helpers/simulator.js'

const stripe = new Stripe('sk_test_unused')
const SEEDED_SECRET = 'whsec_ci_only_declared_in_the_seed_0123'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup(seedEndpoints: NonNullable<Seed['accounts'][number]['webhook_endpoints']> = []) {
  const receiver = await startReceiver()
  const [demo, ...others] = TEST_SEED.accounts
  const seed: Seed = {
    accounts: [{...demo!, webhook_endpoints: seedEndpoints.map((e) => ({...e, url: receiver.url}))}, ...others],
  }
  const sim: TestServer = await startTestServer({serve: {seed}})
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  let pushes = 0
  const push = async () => {
    const answer = await sim.api('PUT', `/v1/checks/external/sec-${++pushes}`, {body: checkWith([['a', 1, 100]])})
    expect(answer.status).toBe(201)
    return answer.body
  }
  const advance = async (seconds: number) => sim.api('POST', '/v1/sim/clock/advance', {body: {seconds}})
  return {receiver, sim, push, advance}
}

/** Whether `secret` alone verifies the request in stripe-node's `constructEvent`. */
function stripeAccepts(request: {body: string; headers: Record<string, unknown>}, secret: string): boolean {
  try {
    stripe.webhooks.constructEvent(request.body, request.headers['x-tablepay-signature'] as string, secret)
    return true
  } catch {
    return false
  }
}

/** Every file under `dir` with its mode. */
async function filesUnder(dir: string): Promise<{path: string; mode: number}[]> {
  const found: {path: string; mode: number}[] = []
  for (const entry of await readdir(dir, {withFileTypes: true, recursive: true})) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    found.push({path, mode: (await stat(path)).mode & 0o777})
  }
  return found
}

describe('known secrets', () => {
  it("a seeded endpoint's deliveries verify with the seed's secret in stripe-node, and seeding again adds no second endpoint", async () => {
    const {receiver, sim, push} = await setup([
      {url: '', event_types: ['check.created'], secret: SEEDED_SECRET, description: 'CI receiver'},
    ])
    const [endpoint] = (await sim.api('GET', '/v1/webhook-endpoints')).body.data
    expect(endpoint).toMatchObject({id: expect.stringMatching(/^we_/), description: 'CI receiver', url: receiver.url})
    expect(endpoint).not.toHaveProperty('secret')
    await push()
    await receiver.waitFor(1)
    expect(stripeAccepts(receiver.received[0]!, SEEDED_SECRET)).toBe(true)

    await sim.stop()
    await sim.restart()
    expect((await sim.api('GET', '/v1/webhook-endpoints')).body.data).toHaveLength(1)
  })

  it('a seed may name the endpoint id; a malformed secret is refused with the seed path', async () => {
    const {sim} = await setup([{id: 'we_ci_receiver', url: '', event_types: ['check.created'], secret: SEEDED_SECRET}])
    expect((await sim.api('GET', '/v1/webhook-endpoints/we_ci_receiver')).status).toBe(200)
    await expect(
      startTestServer({
        serve: {
          seed: {
            accounts: [
              {
                ...TEST_SEED.accounts[0]!,
                webhook_endpoints: [
                  {url: 'http://127.0.0.1:1/h', event_types: ['check.created'], secret: 'whsec_short'},
                ],
              },
            ],
          },
        },
      }),
    ).rejects.toThrow(/accounts\.0\.webhook_endpoints\.0\.secret/)
  })

  it('a seeded endpoint URL is held to the rules of the API: plain http only on loopback, never with --strict-urls', async () => {
    const seeding = (url: string, strictUrls = false) =>
      startTestServer({
        serve: {
          strictUrls,
          seed: {accounts: [{...TEST_SEED.accounts[0]!, webhook_endpoints: [{url, secret: SEEDED_SECRET}]}]},
        },
      })
    await expect(seeding('http://127.0.0.1:1/h', true)).rejects.toThrow(
      "seed: account acct_demo's webhook endpoint http://127.0.0.1:1/h: must be an https URL (the server runs with --strict-urls)",
    )
    await expect(seeding('http://example.com/h')).rejects.toThrow(
      'must be an https URL; plain http is accepted only for localhost',
    )
  })

  it('a seeded endpoint without event_types takes every type, as one the API registers without them', async () => {
    const {sim} = await setup([{url: '', secret: SEEDED_SECRET}])
    const [seeded] = (await sim.api('GET', '/v1/webhook-endpoints')).body.data
    expect(seeded.event_types).toEqual([...EVENT_TYPES])
  })

  it('POST /sim/webhook-endpoints registers an endpoint with the chosen secret; a taken id is 422', async () => {
    const {receiver, sim, push} = await setup()
    const body = {id: 'we_chosen', url: receiver.url, event_types: ['check.created'], secret: SEEDED_SECRET}
    const created = await sim.api('POST', '/v1/sim/webhook-endpoints', {body})
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({id: 'we_chosen', secret: SEEDED_SECRET, status: 'enabled'})
    await push()
    await receiver.waitFor(1)
    expect(stripeAccepts(receiver.received[0]!, SEEDED_SECRET)).toBe(true)
    const again = await sim.api('POST', '/v1/sim/webhook-endpoints', {body})
    expect(again.status).toBe(422)
    expect(again.body.error.details[0].path).toBe('id')
    const bad = await sim.api('POST', '/v1/sim/webhook-endpoints', {body: {...body, id: undefined, secret: 'nope'}})
    expect(bad.status).toBe(422)
  })

  it("a chosen id is the account's own: another account may choose it too, and neither sees the other's", async () => {
    const {receiver, sim, push} = await setup()
    const theirs = {id: 'we_ci_receiver', url: 'http://127.0.0.1:9/theirs', event_types: ['check.created']}
    const taken = await sim.api('POST', '/v1/sim/webhook-endpoints', {
      key: OTHER_KEY,
      body: {...theirs, secret: `whsec_${'o'.repeat(30)}`},
    })
    expect(taken.status).toBe(201)
    const ours = {id: 'we_ci_receiver', url: receiver.url, event_types: ['check.created'], secret: SEEDED_SECRET}
    expect((await sim.api('POST', '/v1/sim/webhook-endpoints', {body: ours})).status).toBe(201)
    expect((await sim.api('GET', '/v1/webhook-endpoints/we_ci_receiver')).body.url).toBe(receiver.url)
    const listed = await sim.api('GET', '/v1/webhook-endpoints?starting_after=we_ci_receiver', {key: OTHER_KEY})
    expect(listed.status).toBe(200)
    // the delivery goes to this account's endpoint, signed with its secret
    await push()
    await receiver.waitFor(1)
    expect(stripeAccepts(receiver.received[0]!, SEEDED_SECRET)).toBe(true)
    const [delivery] = (await sim.api('GET', '/v1/deliveries')).body.data
    expect(delivery).toMatchObject({endpoint_id: 'we_ci_receiver'})
    const resent = await sim.api('POST', `/v1/events/${delivery.event_id}/resend`, {
      body: {endpoint_id: 'we_ci_receiver'},
    })
    expect(resent.status).toBe(201)
    // deleting one leaves the other
    expect((await sim.api('DELETE', '/v1/webhook-endpoints/we_ci_receiver')).status).toBe(200)
    expect((await sim.api('GET', '/v1/webhook-endpoints/we_ci_receiver')).status).toBe(404)
    const still = await sim.api('GET', '/v1/webhook-endpoints/we_ci_receiver', {key: OTHER_KEY})
    expect(still.body).toMatchObject({id: 'we_ci_receiver', url: theirs.url})
  })

  it("a seed's chosen id starts, though another account chose the same id first", async () => {
    const {sim} = await setup()
    const theirs = {id: 'we_ci_receiver', url: 'http://127.0.0.1:9/theirs', event_types: ['check.created']}
    const body = {...theirs, secret: `whsec_${'o'.repeat(30)}`}
    expect((await sim.api('POST', '/v1/sim/webhook-endpoints', {key: OTHER_KEY, body})).status).toBe(201)
    await sim.stop()
    const [demo, ...others] = TEST_SEED.accounts
    const seeded = {id: 'we_ci_receiver', url: 'http://127.0.0.1:9/ours', event_types: ['check.created' as const]}
    const seed: Seed = {accounts: [{...demo!, webhook_endpoints: [{...seeded, secret: SEEDED_SECRET}]}, ...others]}
    await sim.restart({seed})
    expect((await sim.api('GET', '/v1/webhook-endpoints/we_ci_receiver')).body.url).toBe(seeded.url)
    const still = await sim.api('GET', '/v1/webhook-endpoints/we_ci_receiver', {key: OTHER_KEY})
    expect(still.body.url).toBe(theirs.url)
  })

  it('the listen secret is made once per account and kept across restarts', async () => {
    const {sim} = await setup()
    const first = (await sim.api('POST', '/v1/sim/listen-secret')).body
    expect(first).toEqual({object: 'listen_secret', secret: expect.stringMatching(/^whsec_\w{32}$/)})
    expect((await sim.api('POST', '/v1/sim/listen-secret')).body.secret).toBe(first.secret)
    expect((await sim.api('POST', '/v1/sim/listen-secret', {key: 'tp_test_other_write'})).body.secret).not.toBe(
      first.secret,
    )
    expect((await sim.api('POST', '/v1/sim/listen-secret', {key: 'tp_test_demo_read'})).status).toBe(403)
    await sim.stop()
    await sim.restart()
    expect((await sim.api('POST', '/v1/sim/listen-secret')).body.secret).toBe(first.secret)
  })
})

describe('rotate-secret', () => {
  it('signs with both secrets until expire_after_s passes on the scheduler clock, then with the new one alone', async () => {
    const {receiver, sim, push, advance} = await setup()
    const created = (
      await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.created']}})
    ).body
    const rotation = await sim.api('POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`, {
      body: {expire_after_s: 3600},
    })
    expect(rotation.status).toBe(200)
    const {secret} = rotation.body
    expect(secret).toMatch(/^whsec_/)
    expect(secret).not.toBe(created.secret)
    receiver.verifyWith(secret)

    await push()
    await receiver.waitFor(1)
    const during = receiver.received[0]!
    expect((during.headers['x-tablepay-signature'] as string).match(/v1=/g)).toHaveLength(2)
    expect(stripeAccepts(during, secret)).toBe(true)
    expect(stripeAccepts(during, created.secret)).toBe(true)

    await advance(3599)
    await push()
    await receiver.waitFor(2)
    expect(stripeAccepts(receiver.received[1]!, created.secret)).toBe(true)

    await advance(1)
    await push()
    await receiver.waitFor(3)
    const after = receiver.received[2]!
    expect((after.headers['x-tablepay-signature'] as string).match(/v1=/g)).toHaveLength(1)
    expect(stripeAccepts(after, secret)).toBe(true)
    expect(stripeAccepts(after, created.secret)).toBe(false)

    // the test ping is signed as deliveries are
    expect((await sim.api('POST', `/v1/webhook-endpoints/${created.id}/test`)).body.succeeded).toBe(true)
  })

  it("an old secret that expired stays expired when the clock is put back: another account's restore, a reset", async () => {
    const {receiver, sim, advance} = await setup()
    // another account's snapshot, saved with the clock where it is now: restoring it puts the shared clock back
    expect((await sim.api('POST', '/v1/sim/snapshots', {body: {name: 'early'}, key: OTHER_KEY})).status).toBe(201)
    const endpoint = (await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url}})).body
    /** How many secrets sign the endpoint's test ping, sent now. */
    const signing = async () => {
      expect((await sim.api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).body.succeeded).toBe(true)
      return (receiver.received.at(-1)!.headers['x-tablepay-signature'] as string).match(/v1=/g)!.length
    }
    for (const putBack of [
      () => sim.api('POST', '/v1/sim/snapshots/early/restore', {key: OTHER_KEY}),
      () => sim.api('POST', '/v1/sim/clock/reset'),
    ]) {
      const rotated = await sim.api('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
        body: {expire_after_s: 60},
      })
      receiver.verifyWith(rotated.body.secret)
      expect(await signing()).toBe(2)
      await advance(120)
      expect(await signing()).toBe(1)
      expect((await putBack()).status).toBe(200)
      expect(await signing()).toBe(1)
    }
  })

  it('shows the new secret in its answer and nowhere else: not in reads, lists, events, deliveries, nor any data file but private ones', async () => {
    const {receiver, sim, push} = await setup()
    const created = (
      await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.created']}})
    ).body
    const {secret} = (
      await sim.api('POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`, {body: {expire_after_s: 0}})
    ).body
    receiver.verifyWith(secret)
    await push()
    await receiver.waitFor(1)
    for (const path of [
      `/v1/webhook-endpoints/${created.id}`,
      '/v1/webhook-endpoints',
      '/v1/events',
      '/v1/deliveries',
      `/v1/sim/webhook-endpoints/${created.id}/chaos`,
    ]) {
      const answer = await sim.api('GET', path)
      expect(answer.status, path).toBe(200)
      expect(answer.text, path).not.toContain(secret)
    }
    // at rest: on a data dir only in files its owner alone may read (a database guards its own)
    if (onPostgres) return
    const holding = []
    for (const file of await filesUnder(sim.dataDir))
      if ((await readFile(file.path, 'utf8')).includes(secret)) holding.push(file)
    expect(holding.length).toBeGreaterThan(0)
    for (const file of holding) expect(file.mode, file.path).toBe(0o600)
  })

  it('refuses an overlap above a day, and a read key', async () => {
    const {receiver, sim} = await setup()
    const {id} = (
      await sim.api('POST', '/v1/webhook-endpoints', {body: {url: receiver.url, event_types: ['check.created']}})
    ).body
    expect(
      (await sim.api('POST', `/v1/webhook-endpoints/${id}/rotate-secret`, {body: {expire_after_s: 86_401}})).status,
    ).toBe(422)
    expect(
      (await sim.api('POST', `/v1/webhook-endpoints/${id}/rotate-secret`, {body: {}, key: 'tp_test_demo_read'})).status,
    ).toBe(403)
  })
})
