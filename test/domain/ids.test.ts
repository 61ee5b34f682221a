import {describe, expect, it} from 'vitest'
import {newId, randomToken} from '../../src/domain/ids.js'

describe('ids', () => {
  it('an id is its prefix, an underscore and 20 lowercase base-36 characters, new each time', () => {
    const ids = Array.from({length: 1000}, () => newId('dlv'))
    for (const id of ids) expect(id).toMatch(/^dlv_[0-9a-z]{20}$/)
    expect(new Set(ids).size).toBe(1000)
  })

  it('a token has the length asked for, even past its buffer, and uses all 36 characters about evenly', () => {
    expect(randomToken()).toMatch(/^[0-9a-z]{24}$/)
    expect(randomToken(300)).toMatch(/^[0-9a-z]{300}$/)
    const counts = new Map<string, number>()
    for (const c of randomToken(36_000)) counts.set(c, (counts.get(c) ?? 0) + 1)
    expect(counts.size).toBe(36)
    // 1,000 expected each; 6 standard deviations either way
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(190)
  })
})
