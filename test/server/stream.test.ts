import {afterEach, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import type {Delivery, Event, StreamMessage} from '../../src/client/client.js'
import {checkWith} from '../helpers/checks.js'
import {startReceiver} from '../helpers/receiver.js'
import {call, OTHER_KEY, startTestServer, TEST_SEED, type TestServer, WRITE_KEY} from '../helpers/simulator.js'
import {seedStore} from '../../src/server/service.js'
import {Store} from '../../src/store/store.js'
import {serveStorage} from '../helpers/serve-storage.js'
import {openStream} from '../helpers/sse.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup() {
  const sim: TestServer = await startTestServer({memory: true})
  const receiver = await startReceiver()
  cleanup.push(
    () => receiver.close(),
    () => sim.close(),
  )
  return {sim, receiver, client: new TablepayClient({url: sim.url, apiKey: WRITE_KEY})}
}

/** Reads messages until `until` says stop; the stream stays open. */
async function collect(messages: AsyncGenerator<StreamMessage>, until: (seen: StreamMessage[]) => boolean) {
  const seen: StreamMessage[] = []
  while (!until(seen)) {
    const next = await messages.next()
    if (next.done) break
    seen.push(next.value)
  }
  return seen
}

describe('GET /v1/sim/stream', () => {
  it("sends the caller's new events and each delivery change, and nothing of another account", async () => {
    const {sim, receiver, client} = await setup()
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    const messages = await client.openStream({signal: stop.signal})
    receiver.verifyWith(
      (await client.createWebhookEndpoint({url: receiver.url, event_types: ['check.created']})).secret,
    )
    const other = await sim.api('PUT', '/v1/checks/external/o1', {
      key: OTHER_KEY,
      body: {...checkWith([['a', 1, 100]]), location_id: 'loc_other_a'},
    })
    expect(other.status).toBe(201)
    const mine = await sim.api('PUT', '/v1/checks/external/m1', {body: checkWith([['a', 1, 100]])})

    const seen = await collect(messages, (s) => s.some((m) => m.type === 'delivery' && m.data.status === 'succeeded'))
    const kind = (m: StreamMessage) => (m.type === 'event' ? m.data.type : m.type === 'delivery' ? m.data.status : '')
    expect(seen.map((m) => [m.type, kind(m)])).toEqual([
      ['event', 'check.created'],
      ['delivery', 'pending'],
      ['delivery', 'succeeded'],
    ])
    const [event, , delivery] = seen.map((m) => m.data) as [Event, Delivery, Delivery]
    expect(event).toMatchObject({type: 'check.created', data: {id: mine.body.id}})
    expect(delivery).toMatchObject({event_id: event.id, attempts: [{attempt: 1, status_code: 200}]})
  })

  it("sends a reset when a snapshot's restore rewrites the account, and the client yields it", async () => {
    const {sim, client} = await setup()
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    expect((await sim.api('POST', '/v1/sim/snapshots', {body: {name: 'before'}})).status).toBe(201)
    const messages = await client.openStream({signal: stop.signal})
    expect((await sim.api('POST', '/v1/sim/snapshots/before/restore')).status).toBe(200)
    // a change after the restore: a client that drops the reset yields this first
    await sim.api('PUT', '/v1/checks/external/after-restore', {body: checkWith([['a', 1, 100]])})
    const seen = await collect(messages, (s) => s.some((m) => m.type === 'event'))
    expect(seen.map((m) => m.type)).toEqual(['reset', 'event'])
    expect(seen[0]!.data).toEqual({object: 'reset', account_id: 'acct_demo'})
  })

  it("sends endpoint_deleted for each of the account's endpoints deleted, a chosen id's too, and nothing of another account's", async () => {
    const {sim, client} = await setup()
    const other = new TablepayClient({url: sim.url, apiKey: OTHER_KEY})
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    const [mine, theirs] = await Promise.all([
      client.openStream({signal: stop.signal}),
      other.openStream({signal: stop.signal}),
    ])
    const made = await client.createWebhookEndpoint({url: 'http://127.0.0.1:9/made'})
    // a chosen id is kept under a key that names its account; another account may choose the same one
    const input = {id: 'we_chosen', url: 'http://127.0.0.1:9/chosen', secret: `whsec_${'c'.repeat(32)}`}
    await client.createWebhookEndpointWithSecret(input)
    await other.createWebhookEndpointWithSecret(input)
    await other.deleteWebhookEndpoint('we_chosen')
    await client.deleteWebhookEndpoint(made.id)
    await client.deleteWebhookEndpoint('we_chosen')
    // a change after the deletions, on both accounts: a stream that missed a deletion, or got another's, shows it
    await sim.api('PUT', '/v1/checks/external/after-deletes', {body: checkWith([['a', 1, 100]])})
    await other.pushCheck('after-deletes', {...checkWith([['a', 1, 100]]), location_id: 'loc_other_a'})
    const deleted = (seen: StreamMessage[]) => seen.filter((m) => m.type === 'endpoint_deleted').map((m) => m.data)
    const untilEvent = (s: StreamMessage[]) => s.some((m) => m.type === 'event')
    expect(deleted(await collect(mine, untilEvent))).toEqual([
      {id: made.id, object: 'webhook_endpoint', deleted: true},
      {id: 'we_chosen', object: 'webhook_endpoint', deleted: true},
    ])
    expect(deleted(await collect(theirs, untilEvent))).toEqual([
      {id: 'we_chosen', object: 'webhook_endpoint', deleted: true},
    ])
  })

  it('sends a ping while nothing happens, so clients and proxies do not give up on a quiet stream', async () => {
    const sim = await startTestServer({memory: true, serve: {keepAliveMs: 20}})
    cleanup.push(() => sim.close())
    const response = await fetch(`${sim.url}/v1/sim/stream`, {headers: {authorization: `Bearer ${WRITE_KEY}`}})
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    while (!text.includes('\n\n')) text += (await reader.read()).value
    expect(text.slice(0, text.indexOf('\n\n'))).toBe('event: ping\ndata: ')
    await reader.cancel()
  })

  it('needs a key like every API route', async () => {
    const {sim} = await setup()
    const answer = await sim.api('GET', '/v1/sim/stream', {key: null})
    expect(answer.status).toBe(401)
    expect(answer.body.error.code).toBe('unauthenticated')
  })

  it("does not keep the server from stopping: close() resolves and the client's stream ends", async () => {
    const {sim, client} = await setup()
    const messages = await client.openStream()
    const ended = messages.next()
    await sim.server.close()
    expect(await ended).toEqual({done: true, value: undefined})
  })

  it("ends a scratch account's stream when the account is deleted, and no other account's", async () => {
    const {sim, client} = await setup()
    const scratch = (await sim.api('POST', '/v1/sim/accounts')).body
    const stop = new AbortController()
    cleanup.push(async () => stop.abort())
    const [gone, kept] = await Promise.all([
      new TablepayClient({url: sim.url, apiKey: scratch.api_keys[0].key}).openStream({signal: stop.signal}),
      client.openStream({signal: stop.signal}),
    ])
    const ending = gone.next()
    expect((await sim.api('DELETE', `/v1/sim/accounts/${scratch.id}`)).status).toBe(200)
    expect(await ending).toEqual({done: true, value: undefined})
    // a reconnect is refused: the key went with the account
    expect((await sim.api('GET', '/v1/sim/stream', {key: scratch.api_keys[0].key})).status).toBe(401)
    // the caller's stream goes on
    const next = kept.next()
    await sim.api('PUT', '/v1/checks/external/after-delete', {body: checkWith([['a', 1, 100]])})
    expect((await next).value).toMatchObject({type: 'event'})
  })

  it('ends a stream that joins once its account is deleted, its key read before: no commit of the deletion reaches it', async () => {
    const store = await Store.open()
    await seedStore(store, {seed: TEST_SEED})
    const served = await serveStorage(store)
    cleanup.push(async () => {
      await served.close()
      await store.close()
    })
    const scratch = (await call(served.url, 'POST', '/v1/sim/accounts')).body
    // the deletion lands after the key was read, before the stream looks at its account
    const {records, accounts} = served.running.service
    const get = records.get.bind(records)
    records.get = (async (collection: string, id: string) => {
      if (collection === 'accounts' && id === scratch.id) await accounts.deleteScratch('acct_demo', scratch.id)
      return get(collection as 'accounts', id)
    }) as typeof records.get
    const stream = await openStream(`${served.url}/v1/sim/stream`, {authorization: `Bearer ${scratch.api_keys[0].key}`})
    cleanup.push(async () => stream.close())
    expect(stream.status).toBe(200)
    await expect(stream.until(() => false)).rejects.toThrow('stream ended')
  })
})
