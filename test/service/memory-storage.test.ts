import {describe, expect, it} from 'vitest'
import type {UnitOfWork} from '../../src/service/storage.js'
import {Unread} from '../../src/store/unread.js'
import {snapshotOf} from '../helpers/snapshots.js'
import {NOW, serviceForTest} from './service.js'

const setting = (id: string, value: number) => ({id, account_id: '' as const, value})

describe('MemoryStorage', () => {
  it('a unit of work applies its writes together once it ends, and resolves with its value', async () => {
    const {storage} = await serviceForTest()
    const seen: (string | undefined)[] = []
    const value = await storage.unit(async (tx) => {
      tx.put('settings', 'a', setting('a', 1))
      seen.push((await tx.get('settings', 'a'))?.id, (await storage.get('settings', 'a'))?.id)
      return 'done'
    })
    expect([value, seen, (await storage.get('settings', 'a'))?.value]).toEqual(['done', [undefined, undefined], 1])
  })

  it('a unit of work that throws, before or after an await, writes nothing', async () => {
    const {storage} = await serviceForTest()
    await expect(
      storage.unit(async (tx) => {
        tx.put('settings', 'b', setting('b', 1))
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    await expect(
      storage.unit(async (tx) => {
        tx.put('settings', 'b', setting('b', 2))
        await tx.get('settings', 'b')
        throw new Error('refused later')
      }),
    ).rejects.toThrow('refused later')
    expect(await storage.get('settings', 'b')).toBeUndefined()
  })

  it('units run one at a time: a unit that reads and then writes never loses a concurrent one', async () => {
    const {storage} = await serviceForTest()
    // a read-modify-write over several awaits: interleaved units would all read 0 and write 1
    const increment = () =>
      storage.unit(async (tx) => {
        const current = (await tx.get('settings', 'n'))?.value ?? 0
        await tx.list('locations', 'acct_demo')
        tx.put('settings', 'n', setting('n', current + 1))
      })
    await Promise.all(Array.from({length: 50}, increment))
    expect((await storage.get('settings', 'n'))?.value).toBe(50)
  })

  it('a failed unit lets the next one run', async () => {
    const {storage} = await serviceForTest()
    const failed = storage.unit(async () => {
      throw new Error('refused')
    })
    const next = storage.unit(async (tx) => tx.put('settings', 'c', setting('c', 1)))
    await expect(failed).rejects.toThrow('refused')
    await next
    expect((await storage.get('settings', 'c'))?.value).toBe(1)
  })

  it("hands a unit's writes to `durable` once durable, and nothing for a unit that wrote nothing", async () => {
    const {storage} = await serviceForTest()
    const told: unknown[] = []
    await storage.unit(
      async (tx) => tx.put('settings', 'c', setting('c', 2)),
      (changes) => told.push(changes),
    )
    await storage.unit(
      async () => undefined,
      (changes) => told.push(changes),
    )
    expect(told).toEqual([[['settings', 'c', setting('c', 2)]]])
  })

  it('refuses a write through a unit that has ended', async () => {
    const {storage} = await serviceForTest()
    let escaped: UnitOfWork | undefined
    await storage.unit(async (tx) => {
      escaped = tx
    })
    expect(() => escaped!.delete('settings', 'x')).toThrow('a write outside a unit of work')
  })

  it('lists filter on fields, page newest first, and know an unknown cursor', async () => {
    const {storage} = await serviceForTest()
    await storage.unit(async (tx) => {
      for (let i = 1; i <= 5; i++) tx.put('settings', `s${i}`, setting(`s${i}`, i % 2))
    })
    const odd = await storage.list('settings', '', {value: 1})
    const first = await storage.page('settings', '', {limit: 2})
    const second = await storage.page('settings', '', {limit: 2, startingAfter: 's4', where: {value: 1}})
    expect([
      odd.map((s) => s.id),
      first!.records.map((s) => s.id),
      first!.hasMore,
      second!.records.map((s) => s.id),
      second!.hasMore,
      await storage.page('settings', '', {limit: 2, startingAfter: 'nope'}),
    ]).toEqual([['s1', 's3', 's5'], ['s5', 's4'], true, ['s3', 's1'], false, undefined])
  })

  it('deleteAll removes the account’s records of one collection and says how many', async () => {
    const {storage} = await serviceForTest()
    const deleted = await storage.unit((tx) => tx.deleteAll('locations', 'acct_demo'))
    expect([deleted > 0, await storage.list('locations', 'acct_demo')]).toEqual([true, []])
  })

  it('without a journal, refuses a save past 500 MiB of UTF-8 as a store with one does, keeping nothing', async () => {
    const {service, storage} = await serviceForTest()
    // 280 million characters, under V8's longest string, but 560 million bytes
    const note = 'é'.repeat(140_000_000)
    const location = {object: 'location', name: 'Far', timezone: 'UTC', currency: 'EUR', created_at: NOW, note}
    for (const id of ['loc_far1', 'loc_far2'])
      await storage.unit(async (tx) => tx.put('locations', id, {...location, id, account_id: 'acct_demo'} as never))
    await expect(service.snapshots.save('acct_demo', 'far')).rejects.toMatchObject({
      code: 'payload_too_large',
      message: expect.stringMatching(/^Snapshot far is not saved/),
    })
    expect(await service.snapshots.list('acct_demo')).toEqual([])
  })

  it('answers a restore or an export of a snapshot saved past what Node reads back 413, and lists it', async () => {
    const {service, store} = await serviceForTest()
    // as an earlier version saved it and a start reads it: bytes, unread, past the longest string Node makes
    const empty = JSON.stringify(snapshotOf('old', 'acct_demo', [{id: 'chk_1', note: ''}]))
    const at = empty.indexOf('"note":"') + 8
    const bytes = Buffer.concat([
      Buffer.from(empty.slice(0, at)),
      Buffer.alloc(540_000_000, 'x'),
      Buffer.from(empty.slice(at)),
    ])
    store.tables.snapshots.put(Unread.of(bytes)!)
    const refused = {code: 'payload_too_large', message: expect.stringMatching(/^Snapshot old cannot be read/)}
    await expect(service.snapshots.restore('acct_demo', 'old')).rejects.toMatchObject(refused)
    await expect(service.snapshots.get('acct_demo', 'old')).rejects.toMatchObject(refused)
    expect((await service.snapshots.list('acct_demo')).map((snapshot) => snapshot.name)).toEqual(['old'])
  })
})
