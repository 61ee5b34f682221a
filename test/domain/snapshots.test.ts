import {describe, expect, it} from 'vitest'
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
