import {describe, expect, it, onTestFinished} from 'vitest'
import {MemoryStorage} from '../../src/service/memory-storage.js'
import {Store} from '../../src/store/store.js'
import {onPostgres} from '../helpers/postgres.js'
import {makeTempDir} from '../helpers/simulator.js'
import {NOW, serviceForTest, serviceOver} from './service.js'

/** The service on PostgreSQL in its project, else on a store with a journal: the in-memory store writes no JSON. */
async function serviceWithJournal() {
  if (onPostgres) return (await serviceForTest()).service
  const store = await Store.open({dir: await makeTempDir()})
  onTestFinished(() => store.close())
  return (await serviceOver(new MemoryStorage(store))).service
}

describe('service.snapshots.import', () => {
  it('refuses a snapshot whose JSON is past the longest string V8 makes, storing nothing', async () => {
    const service = await serviceWithJournal()
    // two notes of 300 million characters: 600 million written, where V8's longest string is 536,870,888
    const note = 'x'.repeat(300_000_000)
    const location = {object: 'location', name: 'Far', timezone: 'UTC', currency: 'EUR', created_at: NOW, note}
    const records = {
      locations: [
        {...location, id: 'loc_far1'},
        {...location, id: 'loc_far2'},
      ],
    }
    const document = {tablepay_snapshot: 1, name: 'huge', account: 'acct_demo', created_at: NOW, records}
    await expect(service.snapshots.import('acct_demo', document as never)).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/^Snapshot huge is not stored: written as JSON it would be longer/),
    })
    await expect(service.snapshots.get('acct_demo', 'huge')).rejects.toMatchObject({code: 'not_found'})
  })
})
