import {describe, expect, it} from 'vitest'
import {serviceForTest} from './service.js'

describe('MemoryStorage', () => {
  it('a unit of work applies its writes together once it returns, and resolves with its value', async () => {
    const {storage} = await serviceForTest()
    const seen: (string | undefined)[] = []
    const value = await storage.unit((tx) => {
      tx.put('settings', 'a', {id: 'a', account_id: '', value: 1})
      seen.push(storage.get('settings', 'a')?.id)
      return 'done'
    })
    expect([value, seen, storage.get('settings', 'a')?.value]).toEqual(['done', [undefined], 1])
  })

  it('a unit of work that throws writes nothing', async () => {
    const {storage} = await serviceForTest()
    expect(() =>
      storage.unit((tx) => {
        tx.put('settings', 'b', {id: 'b', account_id: '', value: 1})
        throw new Error('refused')
      }),
    ).toThrow('refused')
    await storage.settled()
    expect(storage.get('settings', 'b')).toBeUndefined()
  })

  it("hands a unit's writes to `durable` once durable, and nothing for a unit that wrote nothing", async () => {
    const {storage} = await serviceForTest()
    const told: unknown[] = []
    await storage.unit(
      (tx) => tx.put('settings', 'c', {id: 'c', account_id: '', value: 2}),
      (changes) => told.push(changes),
    )
    await storage.unit(
      () => undefined,
      (changes) => told.push(changes),
    )
    expect(told).toEqual([[['settings', 'c', {id: 'c', account_id: '', value: 2}]]])
  })

  it('refuses a write outside a unit of work and a unit inside another', async () => {
    const {storage} = await serviceForTest()
    let escaped: ((id: string) => void) | undefined
    await storage.unit((tx) => {
      escaped = (id) => tx.delete('settings', id)
      expect(() => storage.unit(() => undefined)).toThrow('units of work do not nest')
    })
    expect(() => escaped!('x')).toThrow('a write outside a unit of work')
  })
})
