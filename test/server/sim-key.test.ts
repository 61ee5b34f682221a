import {afterAll, beforeAll, expect, it} from 'vitest'
import {READ_KEY, startTestServer, type TestServer, WRITE_KEY} from '../helpers/simulator.js'

let sim: TestServer
beforeAll(async () => {
  sim = await startTestServer()
})
afterAll(() => sim.close())

it('GET /v1/sim/key says what the caller’s key may do, and shows only its last 4 characters', async () => {
  const write = await sim.api('GET', '/v1/sim/key', {key: WRITE_KEY})
  const read = await sim.api('GET', '/v1/sim/key', {key: READ_KEY})
  expect([write.status, write.body]).toEqual([
    200,
    {object: 'api_key', account_id: 'acct_demo', scopes: ['read', 'write'], key_hint: 'tp_test_…rite'},
  ])
  expect(read.body.scopes).toEqual(['read'])
  expect(JSON.stringify([write.body, read.body])).not.toContain(WRITE_KEY)
})
