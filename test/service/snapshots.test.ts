import {describe, expect, it, onTestFinished} from 'vitest'
import {MemoryStorage} from '../../src/service/memory-storage.js'
import {Store} from '../../src/store/store.js'
import {onPostgres} from '../helpers/postgres.js'
import {makeTempDir} from '../helpers/simulator.js'
import {NOW, serviceForTest, serviceOver} from './service.js'

/**
 * The service on PostgreSQL in its project, else on a store with a journal, which writes the JSON it refuses;
 * `reopened` lists the snapshots a new start finds (a journal line written but not applied shows there).
 */
async function serviceWithJournal() {
  if (onPostgres) {
    const made = await serviceForTest()
    return {...made, reopened: async () => (await made.storage.all('snapshots')).map((s) => s.name)}
  }
  const dir = await makeTempDir()
  const store = await Store.open({dir})
  onTestFinished(() => store.close())
  const storage = new MemoryStorage(store)
  const reopened = async () => {
    await store.close()
    const again = await Store.open({dir})
    const names = [...again.tables.snapshots.all()].map((s) => s.name)
    await again.close()
    return names
  }
  return {storage, reopened, ...(await serviceOver(storage))}
}

/** Two locations of acct_demo, each with a note of `note`. */
function farLocations(note: string) {
  const location = {object: 'location', name: 'Far', timezone: 'UTC', currency: 'EUR', created_at: NOW, note}
  return [1, 2].map((i) => ({...location, id: `loc_far${i}`, account_id: 'acct_demo'}))
}

describe('service.snapshots.import', () => {
  it('refuses a snapshot past 500 MiB of UTF-8, though under the longest string V8 makes, storing nothing', async () => {
    const {service, reopened} = await serviceWithJournal()
    // 280 million characters of two bytes each: 560 million bytes, past what Node reads back as one string
    const records = {locations: farLocations('é'.repeat(140_000_000)).map(({account_id: _, ...location}) => location)}
    const document = {tablepay_snapshot: 1, name: 'huge', account: 'acct_demo', created_at: NOW, records}
    await expect(service.snapshots.import('acct_demo', document as never)).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/^Snapshot huge is not stored: written as JSON it would be longer/),
    })
    await expect(service.snapshots.get('acct_demo', 'huge')).rejects.toMatchObject({code: 'not_found'})
    expect(await reopened()).toEqual([])
  })
})

describe('service.snapshots.save', () => {
  it('refuses to save an account whose records written as JSON would pass the longest text the server writes, storing nothing', async () => {
    const {service, storage, reopened} = await serviceWithJournal()
    // 540 million characters, where V8's longest string is 536,870,888; one unit each, else neither is written
    for (const location of farLocations('x'.repeat(270_000_000)))
      await storage.unit(async (tx) => tx.put('locations', location.id, location as never))
    await expect(service.snapshots.save('acct_demo', 'far')).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/^Snapshot far is not saved: written as JSON the account's records/),
    })
    await expect(service.snapshots.get('acct_demo', 'far')).rejects.toMatchObject({code: 'not_found'})
    expect(await service.snapshots.list('acct_demo')).toEqual([])
    expect(await reopened()).toEqual([])
    // it writes and reads back 540 million characters: 18–36 s alone on 2 cores, past a minute beside other work
  }, 180_000)
})
