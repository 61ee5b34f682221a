import {describe, expect, it} from 'vitest'
import {checkWith} from '../helpers/checks.js'
import {TEST_SEED} from '../helpers/simulator.js'
import {serviceForTest} from './service.js'

describe('service.accounts and service.sim', () => {
  it('seeding again adds nothing', async () => {
    const {service} = await serviceForTest()
    expect(await service.accounts.seed(TEST_SEED, () => TEST_SEED)).toBe(false)
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
