import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {TablepayClient} from '../../src/client/client.js'
import {checkWith} from '../helpers/checks.js'
import {OTHER_KEY, startTestServer, type TestServer} from '../helpers/simulator.js'

let sim: TestServer
let client: TablepayClient
beforeAll(async () => {
  sim = await startTestServer({memory: true})
  // acct_other has two locations
  client = new TablepayClient({url: sim.url, apiKey: OTHER_KEY})
})
afterAll(() => sim.close())

describe('the client takes and answers what the API does', () => {
  it('listChecks filters by location_id', async () => {
    await client.pushCheck('down-1', checkWith([['tea', 1, 300]], {location_id: 'loc_other_a'}))
    await client.pushCheck('up-1', checkWith([['tea', 1, 300]], {location_id: 'loc_other_b'}))
    const upstairs = await client.listChecks({location_id: 'loc_other_b'})
    expect(upstairs.data.map((check) => check.external_id)).toEqual(['up-1'])
  })

  it('clearFaults answers a fault_clear, all of them or one', async () => {
    const fault = await client.addFault({status: 503, match: {path: '/v1/claims/clm_none'}})
    const one: {object: 'fault_clear'; deleted: number} = await client.clearFaults(fault.id)
    expect(one).toEqual({object: 'fault_clear', deleted: 1})
    await client.addFault({status: 503, match: {path: '/v1/claims/clm_none'}})
    expect(await client.clearFaults()).toEqual({object: 'fault_clear', deleted: 1})
  })
})
