import {describe, expect, it} from 'vitest'
import {ApiError} from '../../src/domain/errors.js'
import {once} from '../../src/service/idempotency.js'
import {NOW, serviceForTest} from './service.js'

const request = (hash: string) => ({key: 'k1', scope: 'api', hash})
const keys = {now: () => NOW, expiresAt: () => NOW, forgotten: () => false}

describe('once', () => {
  it('stores the first answer under the key and gives it back on a replay without deciding again', async () => {
    const {storage} = await serviceForTest()
    let decided = 0
    const decide = async () => ({status: 201, body: {n: ++decided}})
    const first = await storage.unit(async (tx) => once(tx, 'acct_demo', request('h'), keys, decide))
    const replay = await storage.unit(async (tx) => once(tx, 'acct_demo', request('h'), keys, decide))
    expect([first, replay, decided]).toEqual([
      {status: 201, body: {n: 1}, replayed: false},
      {status: 201, body: {n: 1}, replayed: true},
      1,
    ])
  })

  it('refuses the same key with another request', async () => {
    const {storage} = await serviceForTest()
    await storage.unit(async (tx) =>
      once(tx, 'acct_demo', request('h1'), keys, async () => ({
        status: 201,
        body: {},
      })),
    )
    const reuse = () =>
      storage.unit(async (tx) =>
        once(tx, 'acct_demo', request('h2'), keys, async () => ({
          status: 201,
          body: {},
        })),
      )
    await expect(reuse()).rejects.toThrow(ApiError)
    await expect(reuse()).rejects.toThrow(/already used for another request/)
  })

  it('keeps keys apart by account and by scope, and stores nothing without a key', async () => {
    const {storage} = await serviceForTest()
    const run = (account: string, scope: string) =>
      storage.unit(async (tx) =>
        once(tx, account, {key: 'k1', scope, hash: scope}, keys, async () => ({
          status: 201,
          body: scope,
        })),
      )
    const answers = [
      await run('acct_demo', 'api'),
      await run('acct_other', 'link:chk_1'),
      await run('acct_demo', 'link:chk_1'),
    ]
    expect(answers.map((a) => a.replayed)).toEqual([false, false, false])
    await storage.unit(async (tx) =>
      once(tx, 'acct_demo', undefined, keys, async () => ({
        status: 200,
        body: null,
      })),
    )
    expect(await storage.all('idempotency_keys')).toHaveLength(3)
  })
})
