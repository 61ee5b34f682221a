import {describe, expect, it} from 'vitest'
import {setImmediate as nextTurn} from 'node:timers/promises'
import {snapshotDocument} from '../../src/domain/snapshot-document.js'
import {isRestore, restoreSetting} from '../../src/domain/snapshots.js'

describe('isRestore', () => {
  const mark = restoreSetting('acct_a')
  const written = [
    ['checks', 'chk_1', null],
    ['settings', mark, {id: mark, account_id: '', value: 2}],
  ] as const

  it("is a restore's changes, which write the account's mark: of that account, or of any", () => {
    expect([isRestore(written, 'acct_a'), isRestore(written), isRestore(written, 'acct_b')]).toEqual([
      true,
      true,
      false,
    ])
  })

  it("is not an account's deletion, which deletes its mark: a guest page of its check is told gone, not reset", () => {
    const deleted = [
      ['checks', 'chk_1', null],
      ['settings', mark, null],
    ] as const
    expect([isRestore(deleted, 'acct_a'), isRestore(deleted)]).toEqual([false, false])
  })
})

describe('snapshotDocument', () => {
  it('with a pause, checks a document of many records in turns of the event loop: other work runs while it checks', async () => {
    const location = (i: number) => ({
      id: `loc_${i}`,
      object: 'location',
      name: `Room ${i}`,
      timezone: 'Europe/Paris',
      currency: 'EUR',
      created_at: '2026-01-01T00:00:00.000Z',
      account_id: 'acct_a',
    })
    const document = {
      tablepay_snapshot: 1,
      name: 'many',
      account: 'acct_a',
      created_at: '2026-01-01T00:00:00.000Z',
      records: {locations: Array.from({length: 5000}, (_, i) => location(i))},
    }
    // each turn of the loop that another piece of work gets while the check runs
    let turns = 0
    let checking = true
    const count = () => {
      if (!checking) return
      turns++
      setImmediate(count)
    }
    setImmediate(count)
    const result = await snapshotDocument(() => nextTurn()).safeParseAsync(document)
    checking = false
    expect(result.success).toBe(true)
    expect(turns).toBeGreaterThanOrEqual(5)
  })
})
