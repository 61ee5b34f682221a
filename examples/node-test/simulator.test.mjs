// Run with: node --test examples/node-test/*.test.mjs
// In your project: npm install --save-dev tablepay, then the same imports.
import assert from 'node:assert/strict'
import {after, before, test} from 'node:test'
import {TablepayClient} from 'tablepay/client'
import {startSimulator} from 'tablepay/testing'

let sim
let client

before(async () => {
  sim = await startSimulator({seed: 'fixtures/seed.json'})
  client = new TablepayClient({url: sim.url, apiKey: sim.apiKey})
})

after(() => sim.close())

const check = {
  location_id: 'loc_main',
  version: 1,
  table: {number: '12'},
  status: 'open',
  items: [{external_id: 'l1', name: 'Espresso', quantity: 2, price_cents: 250}],
  totals: {subtotal_cents: 500, tax_cents: 50, total_cents: 550},
}

test('a first push creates the check, a replay changes nothing', async () => {
  assert.equal((await client.pushCheck('t12', check)).result, 'created')
  assert.equal((await client.pushCheck('t12', check)).result, 'unchanged')
})

test('reset() leaves the account without checks', async () => {
  await sim.reset()
  assert.deepEqual((await client.listChecks()).data, [])
})
