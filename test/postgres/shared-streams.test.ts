import {describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import type {RequestStreamMessage} from '../../src/client/stream.js'
import type {RunningServer} from '../../src/server/start.js'
import {checkWith} from '../helpers/checks.js'
import {useTwoInstances} from '../helpers/two-instances.js'
import {startReceiver} from '../helpers/receiver.js'
import {call, OTHER_KEY, WRITE_KEY} from '../helpers/simulator.js'
import {openStream} from '../helpers/sse.js'

// two instances of one sandbox: what is done through a shows on b's live stream and in its request log
let a: RunningServer
let b: RunningServer
useTwoInstances((servers) => ({a, b} = servers))

/** Reads b's live stream (its `request` messages, or the others) until `found` matches a message, which it resolves with. */
async function onStreamOfB(
  act: () => Promise<unknown>,
  found: (message: RequestStreamMessage) => boolean,
  requests = true,
): Promise<RequestStreamMessage> {
  const client = new TablepayClient({url: `${b.url}/v1`, apiKey: WRITE_KEY})
  const stop = new AbortController()
  try {
    const {signal} = stop
    const messages: AsyncGenerator<RequestStreamMessage> = requests
      ? await client.openRequestStream({signal})
      : await client.openStream({signal})
    await act()
    for (;;) {
      const {value, done} = await messages.next()
      if (done) throw new Error('the stream ended')
      if (found(value)) return value
    }
  } finally {
    stop.abort()
  }
}

/** Reads b's request log until an entry with `id` is there. */
async function requestOnB(id: string) {
  for (;;) {
    const answer = await call(b.url, 'GET', `/v1/sim/requests/${id}`)
    if (answer.status === 200) return answer.body
  }
}

describe('live streams and the request log across instances', () => {
  it("b's stream shows the deliveries of a's changes, with their attempts", async () => {
    const receiver = await startReceiver()
    try {
      const endpoint = await call(a.url, 'POST', '/v1/webhook-endpoints', {
        body: {url: receiver.url, event_types: ['check.created']},
      })
      const message = await onStreamOfB(
        () => call(a.url, 'PUT', '/v1/checks/external/s1', {body: checkWith([['steak', 1, 1000]])}),
        (message) => message.type === 'delivery' && message.data.status === 'succeeded',
        false,
      )
      expect(message.data).toMatchObject({endpoint_id: endpoint.body.id, attempts: [{attempt: 1, status_code: 200}]})
    } finally {
      await receiver.close()
    }
  })

  it("b's stream and request log show the requests made through a, and a reset through a clears both logs", async () => {
    let pushed: Awaited<ReturnType<typeof call>> | undefined
    const message = await onStreamOfB(
      async () =>
        (pushed = await call(a.url, 'PUT', '/v1/checks/external/s2', {body: checkWith([['steak', 1, 1000]])})),
      (message) => message.type === 'request' && message.data.path === '/v1/checks/external/s2',
    )
    const id = pushed!.headers.get('x-request-id')!
    const onA = (await call(a.url, 'GET', `/v1/sim/requests/${id}`)).body
    expect(message.data).toEqual(onA)
    expect(onA).toMatchObject({id, method: 'PUT', status: 201, push_result: 'created'})
    expect(await requestOnB(id)).toEqual(onA)
    const listed = (await call(b.url, 'GET', '/v1/sim/requests?path=/v1/checks/external/s2')).body.data
    expect(listed.map((entry: {id: string}) => entry.id)).toContain(id)

    expect((await call(a.url, 'POST', '/v1/sim/reset')).status).toBe(200)
    for (;;) {
      const left = (await call(b.url, 'GET', '/v1/sim/requests?path=/v1/checks/external/s2')).body.data
      if (left.length === 0) break
    }
  })

  it("a restore through a of a large account sends b's streams a reset, and a table page its check as restored", async () => {
    // past LARGE_BYTES (src/postgres/bulk.ts): b reads the restored records back by their keys
    const lines = Array.from(
      {length: 20},
      (_, i) => [`dish-${i}`, 1, 100, 'x'.repeat(60)] as [string, number, number, string],
    )
    const checks = []
    for (let i = 0; i < 40; i++) {
      const pushed = await call(a.url, 'PUT', `/v1/checks/external/big${i}`, {body: checkWith(lines)})
      expect(pushed.status).toBe(201)
      checks.push(pushed.body)
    }
    expect((await call(a.url, 'POST', '/v1/sim/snapshots', {body: {name: 'large'}})).status).toBe(201)
    const check = checks[3]
    const changed = await call(a.url, 'PUT', '/v1/checks/external/big3', {body: checkWith(lines, {version: 2})})
    expect(changed.body.version).toBe(2)
    const account = await openStream(`${b.url}/v1/sim/stream`, {authorization: `Bearer ${WRITE_KEY}`})
    const page = await openStream(`${b.url}${new URL(check.guest_url).pathname}/stream`)
    try {
      await page.until((text) => text.includes('"version":2,'))
      expect((await call(a.url, 'POST', '/v1/sim/snapshots/large/restore')).status).toBe(200)
      await account.until((text) => text.includes('event: reset'))
      expect(account.text).toContain('event: reset\ndata: {"object":"reset","account_id":"acct_demo"}\n\n')
      const text = await page.until((text) => text.includes('event: reset'))
      const after = text.slice(text.indexOf('event: reset'))
      expect(after).toMatch(new RegExp(`^event: reset\ndata: \\{"id":"${check.id}"\\}\n\nevent: check\ndata: \\{`))
      expect(after).not.toContain('"version":2,')
    } finally {
      account.close()
      page.close()
    }
  })

  it("an endpoint deleted through a reaches b's stream as endpoint_deleted, a chosen id's too, and another account's does not", async () => {
    const made = await call(a.url, 'POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/made'}})
    const chosen = {id: 'we_chosen', url: 'http://127.0.0.1:9/chosen', secret: `whsec_${'c'.repeat(32)}`}
    for (const key of [WRITE_KEY, OTHER_KEY])
      expect((await call(a.url, 'POST', '/v1/sim/webhook-endpoints', {key, body: chosen})).status).toBe(201)
    const stream = await openStream(`${b.url}/v1/sim/stream`, {authorization: `Bearer ${WRITE_KEY}`})
    try {
      const deleteOnA = (id: string, key = WRITE_KEY) => call(a.url, 'DELETE', `/v1/webhook-endpoints/${id}`, {key})
      expect((await deleteOnA('we_chosen', OTHER_KEY)).status).toBe(200)
      expect((await deleteOnA(made.body.id)).status).toBe(200)
      expect((await deleteOnA('we_chosen')).status).toBe(200)
      const deleted = (text: string) => [...text.matchAll(/event: endpoint_deleted\ndata: (.*)\n/g)].map((m) => m[1])
      const text = await stream.until((text) => deleted(text).length >= 2)
      expect(deleted(text).map((data) => JSON.parse(data!))).toEqual([
        {id: made.body.id, object: 'webhook_endpoint', deleted: true},
        {id: 'we_chosen', object: 'webhook_endpoint', deleted: true},
      ])
    } finally {
      stream.close()
    }
  })

  it("b renders a's requests as a does: a push's changes, and the secrets redacted", async () => {
    const push = (version: number) =>
      call(a.url, 'PUT', '/v1/checks/external/s4', {body: checkWith([['steak', version, 1000]], {version})})
    expect((await push(1)).status).toBe(201)
    const updated = await push(2)
    const endpoint = await call(a.url, 'POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/hooks'}})
    expect(endpoint.status).toBe(201)
    for (const answer of [updated, endpoint]) {
      const id = answer.headers.get('x-request-id')!
      const onA = (await call(a.url, 'GET', `/v1/sim/requests/${id}`)).body
      expect(await requestOnB(id)).toEqual(onA)
    }
    const onB = await requestOnB(updated.headers.get('x-request-id')!)
    expect(onB).toMatchObject({push_result: 'updated', changes: {items: {changed: [{external_id: 'steak'}]}}})
    const created = JSON.stringify(await requestOnB(endpoint.headers.get('x-request-id')!))
    expect(created).not.toContain(endpoint.body.secret)
  })

  it('a request too large for a notification reaches b with its bodies cut, marked truncated', async () => {
    const lines = Array.from(
      {length: 120},
      (_, i) => [`item-${i}`, 1, 100, 'x'.repeat(60)] as [string, number, number, string],
    )
    const pushed = await call(a.url, 'PUT', '/v1/checks/external/s3', {body: checkWith(lines)})
    expect(pushed.status).toBe(201)
    const id = pushed.headers.get('x-request-id')!
    const onA = (await call(a.url, 'GET', `/v1/sim/requests/${id}`)).body
    expect(onA).toMatchObject({request_body_truncated: false, response_body_truncated: false})
    const onB = await requestOnB(id)
    expect(onB).toMatchObject({id, status: 201, request_body_truncated: true, response_body_truncated: true})
    expect(JSON.stringify(onA.request_body).startsWith(onB.request_body)).toBe(true)
  })

  it("many requests through a at once all reach b's log, in the order a logged them", async () => {
    const answers = await Promise.all(
      Array.from({length: 40}, (_, i) => call(a.url, 'GET', `/v1/checks/external/many${i}`)),
    )
    const ids = answers.map((answer) => answer.headers.get('x-request-id')!)
    const onA = async (server: RunningServer) =>
      (
        (await call(server.url, 'GET', '/v1/sim/requests?path=/v1/checks/external/many&limit=100')).body.data as {
          id: string
        }[]
      ).map((entry) => entry.id)
    const logged = await onA(a)
    expect([...logged].sort()).toEqual([...ids].sort())
    await expect.poll(() => onA(b), {timeout: 10_000}).toEqual(logged)
  })
})
