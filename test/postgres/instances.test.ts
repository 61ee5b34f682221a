import {describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import type {StreamMessage} from '../../src/client/stream.js'
import type {RunningServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {useTwoInstances} from '../helpers/two-instances.js'
import {call, WRITE_KEY} from '../helpers/simulator.js'

// two instances of one sandbox, as behind a load balancer: one database, two servers
let a: RunningServer
let b: RunningServer
useTwoInstances((servers) => ({a, b} = servers))

const events = async (server: RunningServer) =>
  (await call(server.url, 'GET', '/v1/events?limit=100')).body.data as {type: string; data: {id: string}}[]

describe('two instances on one database', () => {
  it('concurrent pushes of one check through both end in the highest version, with one check.created', async () => {
    const pushes = [1, 2, 3, 4, 5, 6].flatMap((version) =>
      [a, b].map((server) =>
        call(server.url, 'PUT', '/v1/checks/external/t12', {
          body: checkWith([['steak', version, 1000]], {version}),
        }),
      ),
    )
    const answers = await Promise.all(pushes)
    expect(answers.map((answer) => answer.status).filter((status) => status >= 300)).toEqual([])
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1)
    for (const server of [a, b]) {
      const check = await call(server.url, 'GET', '/v1/checks/external/t12')
      expect(check.body).toMatchObject({version: 6, items: [{quantity: 6}]})
    }
    const types = (await events(b)).map((event) => event.type)
    expect(types.filter((type) => type === 'check.created')).toHaveLength(1)
  })

  it('200 concurrent claims of the last unit through both make exactly one claim', async () => {
    const check = (await call(a.url, 'PUT', '/v1/checks/external/t7', {body: checkWith([['steak', 1, 1000]])})).body
    const claims = Array.from({length: 200}, (_, i) =>
      call([a, b][i % 2]!.url, 'POST', `/v1/sim/checks/${check.id}/claims`, {
        body: {items: [{external_id: 'steak', quantity: 1}]},
      }),
    )
    const statuses = (await Promise.all(claims)).map((answer) => answer.status)
    expect(statuses.filter((status) => status === 201)).toHaveLength(1)
    expect(statuses.filter((status) => status === 409)).toHaveLength(199)
    expect((await call(b.url, 'GET', `/v1/checks/${check.id}/claims`)).body.data).toHaveLength(1)
    expect((await events(a)).filter((event) => event.type === 'claim.created')).toHaveLength(1)
  })

  it('twenty copies of one keyed payment of the whole amount through both at once: one payment, every answer its', async () => {
    const check = (await call(a.url, 'PUT', '/v1/checks/external/t8', {body: checkWith([['steak', 1, 1000]])})).body
    const pay = (server: RunningServer) =>
      call(server.url, 'POST', `/v1/sim/checks/${check.id}/payments`, {
        body: {amount_cents: check.amount_due_cents},
        headers: {'idempotency-key': 'pay-once'},
      })
    const answers = await Promise.all(Array.from({length: 20}, (_, i) => pay([a, b][i % 2]!)))
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({length: 20}, () => 201))
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1)
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19)
    expect((await events(b)).filter((event) => event.type === 'payment.succeeded')).toHaveLength(1)
    expect((await call(b.url, 'GET', `/v1/checks/${check.id}`)).body).toMatchObject({amount_due_cents: 0})
  })

  it('GET /v1/sim/stream on one instance sees the events made through the other', async () => {
    const client = new TablepayClient({url: `${b.url}/v1`, apiKey: WRITE_KEY})
    const stop = new AbortController()
    try {
      const messages = await client.openStream({signal: stop.signal})
      const pushed = await call(a.url, 'PUT', '/v1/checks/external/t9', {body: checkWith([['steak', 1, 1000]])})
      expect(pushed.status).toBe(201)
      let message: StreamMessage | undefined
      do message = (await messages.next()).value as StreamMessage | undefined
      while (message !== undefined && message.type !== 'event')
      expect(message).toMatchObject({type: 'event', data: {type: 'check.created', data: {id: pushed.body.id}}})
    } finally {
      stop.abort()
    }
  })

  it('a key deleted through one instance stops working on the other, which had it in hand', async () => {
    const scratch = (await call(a.url, 'POST', '/v1/sim/accounts')).body
    const key = scratch.api_keys[0].key
    // b reads the key, and keeps it for the requests that follow
    expect((await call(b.url, 'GET', '/v1/checks', {key})).status).toBe(200)
    expect((await call(b.url, 'GET', '/v1/checks', {key})).status).toBe(200)
    expect((await call(a.url, 'DELETE', `/v1/sim/accounts/${scratch.id}`)).status).toBe(200)
    await expect.poll(async () => (await call(b.url, 'GET', '/v1/checks', {key})).status, {timeout: 10_000}).toBe(401)
  })
})
