import {describe, expect, it} from 'vitest'
import {Flights} from '../../src/webhooks/flights.js'

describe('Flights', () => {
  it("counts an attempt out in its account's lane only: an endpoint's id may be another account's too", () => {
    const flights = new Flights()
    flights.open({id: 'dlv_1', endpointId: 'we_ci', lane: 'acct_a/we_ci'})
    expect([flights.outIn('acct_a/we_ci'), flights.outIn('acct_b/we_ci'), flights.outIn(undefined)]).toEqual([
      true,
      false,
      false,
    ])
    flights.close('dlv_1')
    expect(flights.outIn('acct_a/we_ci')).toBe(false)
  })
})
