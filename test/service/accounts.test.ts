import {describe, expect, it} from 'vitest'
import {RESTORE_SETTING, restoreSetting} from '../../src/domain/snapshots.js'
import {checkWith} from '../helpers/checks.js'
import {requestTrace} from '../helpers/request-log.js'
import {TEST_SEED} from '../helpers/simulator.js'
import {NOW, serviceForTest} from './service.js'

describe('service.accounts and service.sim', () => {
  it('seeding again adds nothing', async () => {
    const {service} = await serviceForTest()
    expect(await service.accounts.seed(TEST_SEED, () => TEST_SEED)).toBe(false)
  })

  it('refuses a seed that would give an account more webhook endpoints than it may have, counting those it has', async () => {
    const {service} = await serviceForTest()
    const secret = `whsec_${'1'.repeat(32)}`
    const endpoints = (from: number, to: number) =>
      Array.from({length: to - from}, (_, i) => ({url: `https://example.com/${from + i}`, secret}))
    const seeding = (webhook_endpoints: ReturnType<typeof endpoints>) => {
      const [demo] = TEST_SEED.accounts
      return service.accounts.seed({accounts: [{...demo!, webhook_endpoints}]}, () => TEST_SEED)
    }
    expect(await seeding(endpoints(0, 99))).toBe(true)
    // the 99 listed again add nothing: 2 new ones would make 101
    await expect(seeding(endpoints(0, 101))).rejects.toThrow(
      'seed: account acct_demo would have 101 webhook endpoints, more than the 100 an account may have',
    )
    await expect(seeding(endpoints(99, 101))).rejects.toThrow('would have 101 webhook endpoints')
    // one more, listed twice, makes one endpoint: the 100th
    expect(await seeding([...endpoints(0, 100), ...endpoints(99, 100)])).toBe(true)
    expect(await service.records.allOf('webhook_endpoints', 'acct_demo')).toHaveLength(100)
  })

  it("a scratch account has its parent's locations; deleting it takes its scratch accounts and data", async () => {
    const {service} = await serviceForTest()
    const scratch = await service.accounts.createScratch('acct_demo')
    const nested = await service.accounts.createScratch(scratch.id)
    await service.checks.push(nested.id, 't1', checkWith([['a', 1, 500]]))
    expect((await service.records.allOf('locations', scratch.id)).map((l) => l.id)).toHaveLength(1)
    await service.accounts.deleteScratch('acct_demo', scratch.id)
    expect([
      await service.records.get('accounts', nested.id),
      await service.records.allOf('checks', nested.id),
    ]).toEqual([undefined, []])
  })

  it('deleting a scratch account deletes the count of its restores, which the server keeps among its settings', async () => {
    const {service, storage} = await serviceForTest()
    const scratch = await service.accounts.createScratch('acct_demo')
    const nested = await service.accounts.createScratch(scratch.id)
    for (const account of [scratch.id, nested.id, 'acct_demo']) {
      await service.snapshots.save(account, 'kept')
      await service.snapshots.restore(account, 'kept')
    }
    await service.accounts.deleteScratch('acct_demo', scratch.id)
    const counts = (await storage.all('settings')).map((s) => s.id).filter((id) => id.startsWith(RESTORE_SETTING))
    expect(counts).toEqual([restoreSetting('acct_demo')])
  })

  it('deleting a scratch account forgets what is kept beside the storage: its request log, cursors included, and its faults', async () => {
    const {service} = await serviceForTest()
    const scratch = await service.accounts.createScratch('acct_demo')
    const nested = await service.accounts.createScratch(scratch.id)
    for (const account of [scratch.id, nested.id, 'acct_demo']) {
      service.requests.record(account, requestTrace({id: `req_${account}`}))
      await service.faults.add(account, {status: 503}, NOW)
    }
    await service.accounts.deleteScratch('acct_demo', scratch.id)
    for (const account of [scratch.id, nested.id]) {
      // a cursor the log never held: not even the ids of its entries are kept
      expect(service.requests.list(account, {}, {limit: 10, starting_after: `req_${account}`})).toBeUndefined()
      expect(await service.faults.list(account)).toEqual([])
    }
    expect(service.requests.list('acct_demo', {}, {limit: 10})!.data.map((entry) => entry.id)).toEqual([
      'req_acct_demo',
    ])
    expect(await service.faults.list('acct_demo')).toHaveLength(1)
    // a request under way when its account went, answered after: its entry makes no log again
    service.requests.record(scratch.id, requestTrace({id: 'req_late'}))
    expect(service.requests.list(scratch.id, {}, {limit: 10})!.data).toEqual([])
  })

  it('a change for an account deleted after its key was found is refused as the key now is, and writes nothing', async () => {
    const {service, storage} = await serviceForTest()
    const scratch = await service.accounts.createScratch('acct_demo')
    await service.accounts.deleteScratch('acct_demo', scratch.id)
    const endpoint = {url: 'http://127.0.0.1:9/hooks', event_types: ['check.created' as const]}
    const refused = expect.objectContaining({code: 'unauthenticated'})
    await expect(service.accounts.createScratch(scratch.id)).rejects.toEqual(refused)
    await expect(service.endpoints.listenSecret(scratch.id)).rejects.toEqual(refused)
    await expect(service.endpoints.create(scratch.id, endpoint)).rejects.toEqual(refused)
    const secret = `whsec_${'a'.repeat(32)}`
    await expect(service.endpoints.createWithSecret(scratch.id, {...endpoint, secret})).rejects.toEqual(refused)
    // a push naming the location the account had: not a 422 for a location it lacks
    const location_id = scratch.locations[0]!.id
    await expect(service.checks.push(scratch.id, 's1', checkWith([['a', 1, 100]], {location_id}))).rejects.toEqual(
      refused,
    )
    await expect(service.checks.push(scratch.id, 's2', checkWith([['a', 1, 100]]))).rejects.toEqual(refused)
    const left = await Promise.all(
      (['accounts', 'webhook_endpoints'] as const).map((collection) => storage.all(collection)),
    )
    expect(left.flat().filter((record) => JSON.stringify(record).includes(scratch.id))).toEqual([])
  })

  it('only the account that made a scratch account may delete it', async () => {
    const {service} = await serviceForTest()
    const scratch = await service.accounts.createScratch('acct_demo')
    await expect(service.accounts.deleteScratch('acct_other', scratch.id)).rejects.toThrow(
      `No scratch account ${scratch.id} made by this account.`,
    )
  })

  it('a reset says how many of each it deleted and keeps keys and locations', async () => {
    const {service} = await serviceForTest()
    await service.checks.push('acct_demo', 't1', checkWith([['a', 1, 500]]))
    const deleted = await service.sim.reset('acct_demo')
    expect(deleted).toMatchObject({checks: 1, events: 1, deliveries: 0})
    expect(await service.records.allOf('api_keys', 'acct_demo')).toHaveLength(2)
  })

  it('the clock offset saved is the one read back', async () => {
    const {service} = await serviceForTest()
    await service.sim.saveClockOffset(90_000)
    expect(await service.sim.clockOffset()).toBe(90_000)
  })
})
