import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {OTHER_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer({serve: {limits: {scratch_accounts: 3}}})
})
afterAll(() => sim.close())
beforeEach(async () => {
  expect((await sim.api('POST', '/v1/sim/reset')).status).toBe(200)
})

const HOOK = {url: 'http://127.0.0.1:9/hook', event_types: ['check.created']}

/** Sends `count` requests one after the other; resolves with their statuses. */
async function statusesOf(count: number, send: (i: number) => Promise<{status: number}>): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < count; i++) statuses.push((await send(i)).status)
  return statuses
}

describe('limits (docs/api.md, "Limits")', () => {
  it('an account holds 100 faults: the 101st is 422 limit_reached naming the limit, and is not added', async () => {
    const fault = {match: {path: '/v1/claims/clm_none'}, status: 503, times: null}
    expect(new Set(await statusesOf(100, () => sim.api('POST', '/v1/sim/faults', {body: fault})))).toEqual(
      new Set([201]),
    )
    const refused = await sim.api('POST', '/v1/sim/faults', {body: fault})
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({code: 'limit_reached', details: [{path: 'faults'}]})
    const listed = await sim.api('GET', '/v1/sim/faults?limit=100')
    expect(listed.body.data).toHaveLength(100)
    expect((await sim.api('DELETE', `/v1/sim/faults/${listed.body.data[0].id}`)).status).toBe(200)
    expect((await sim.api('POST', '/v1/sim/faults', {body: fault})).status).toBe(201)
  })

  it('an account holds 100 webhook endpoints, however made: the 101st is 422 limit_reached', async () => {
    const made = await statusesOf(100, (i) =>
      i % 2 === 0
        ? sim.api('POST', '/v1/webhook-endpoints', {body: HOOK})
        : sim.api('POST', '/v1/sim/webhook-endpoints', {body: {...HOOK, secret: `whsec_${'k'.repeat(24)}${i}`}}),
    )
    expect(new Set(made)).toEqual(new Set([201]))
    for (const [path, body] of [
      ['/v1/webhook-endpoints', HOOK],
      ['/v1/sim/webhook-endpoints', {...HOOK, secret: `whsec_${'k'.repeat(30)}`}],
    ] as const) {
      const refused = await sim.api('POST', path, {body})
      expect(refused.status, path).toBe(422)
      expect(refused.body.error).toMatchObject({code: 'limit_reached', details: [{path: 'webhook_endpoints'}]})
    }
    const endpoints = (await sim.api('GET', '/v1/webhook-endpoints?limit=100')).body
    expect(endpoints.has_more).toBe(false)
    for (const {id} of endpoints.data) expect((await sim.api('DELETE', `/v1/webhook-endpoints/${id}`)).status).toBe(200)
  })

  it('additions sent at once hold the limits too: of 150 sent together, 100 are added and 50 refused', async () => {
    const fault = {match: {path: '/v1/claims/clm_none'}, status: 503, times: null}
    const kinds = [
      {path: '/v1/sim/faults', body: fault, list: '/v1/sim/faults?limit=100'},
      {path: '/v1/webhook-endpoints', body: HOOK, list: '/v1/webhook-endpoints?limit=100'},
    ]
    for (const {path, body, list} of kinds) {
      const sent = await Promise.all(Array.from({length: 150}, () => sim.api('POST', path, {body})))
      const statuses = sent.map((answer) => answer.status)
      expect(statuses.filter((status) => status === 201).length, path).toBe(100)
      expect(statuses.filter((status) => status === 422).length, path).toBe(50)
      const held = (await sim.api('GET', list)).body
      expect([held.data.length, held.has_more], path).toEqual([100, false])
    }
    const endpoints = (await sim.api('GET', '/v1/webhook-endpoints?limit=100')).body.data as {id: string}[]
    for (const {id} of endpoints) await sim.api('DELETE', `/v1/webhook-endpoints/${id}`)
  })

  it('past the live scratch accounts a server holds, the one unused longest goes, with all it holds', async () => {
    const make = async () => (await sim.api('POST', '/v1/sim/accounts')).body as {id: string; api_keys: {key: string}[]}
    const locations = (account: {api_keys: {key: string}[]}) =>
      sim.api('GET', '/v1/locations', {key: account.api_keys[0]!.key})
    const [a, b, c] = [await make(), await make(), await make()]
    // b, made second, is used last but one: a and c are used after it
    for (const used of [b, a, c]) expect((await locations(used)).status).toBe(200)
    const d = await make()
    expect((await locations(b)).status).toBe(401)
    for (const kept of [a, c, d]) expect((await locations(kept)).status).toBe(200)
    for (const account of [a, c, d]) await sim.api('DELETE', `/v1/sim/accounts/${account.id}`)
  })

  it('scratch accounts made at once by different accounts hold the limit too: 3 of them are kept', async () => {
    const made = await Promise.all(
      Array.from({length: 8}, (_, i) =>
        sim.api('POST', '/v1/sim/accounts', {key: i % 2 === 0 ? WRITE_KEY : OTHER_KEY}),
      ),
    )
    expect(new Set(made.map((answer) => answer.status))).toEqual(new Set([201]))
    const keys = made.map((answer) => (answer.body as {api_keys: {key: string}[]}).api_keys[0]!.key)
    const working = await statusesOf(keys.length, (i) => sim.api('GET', '/v1/locations', {key: keys[i]}))
    expect(working.filter((status) => status === 200)).toHaveLength(3)
  })
})
