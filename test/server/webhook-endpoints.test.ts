import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {EVENT_TYPES} from '../../src/domain/constants.js'
import {startTestServer, type TestServer} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer()
})
afterAll(async () => {
  await sim.close()
})

describe('POST /webhook-endpoints', () => {
  it('without event_types, registers the endpoint for every type', async () => {
    const created = await sim.api('POST', '/v1/webhook-endpoints', {body: {url: 'http://127.0.0.1:9/all'}})
    expect([created.status, created.body.event_types]).toEqual([201, [...EVENT_TYPES]])
    const known = await sim.api('POST', '/v1/sim/webhook-endpoints', {
      body: {url: 'http://127.0.0.1:9/all-known', secret: 'whsec_every_type_when_none_is_named_01'},
    })
    expect([known.status, known.body.event_types]).toEqual([201, [...EVENT_TYPES]])
  })

  it('refuses an empty event_types on that field, registering nothing', async () => {
    const before = (await sim.api('GET', '/v1/webhook-endpoints?limit=100')).body.data.length
    const refused = await sim.api('POST', '/v1/webhook-endpoints', {
      body: {url: 'http://127.0.0.1:9/x', event_types: []},
    })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({code: 'validation_failed', details: [{path: 'event_types'}]})
    expect((await sim.api('GET', '/v1/webhook-endpoints?limit=100')).body.data).toHaveLength(before)
  })
})
