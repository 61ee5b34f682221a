import {describe, expect, it} from 'vitest'
import {isoTime} from '../../src/domain/timestamps.js'

describe('isoTime', () => {
  it('formats each millisecond as Date does, whatever was formatted before it, up to the end of year 9999', () => {
    const last = Date.parse('9999-12-31T23:59:59.999Z')
    const times = [0, 1_795_000_000_123, 1_795_000_000_123, 1_795_000_000_124, 0, -1, last]
    expect(times.map(isoTime)).toEqual(times.map((ms) => new Date(ms).toISOString()))
    expect([last + 1, 8.64e15, 9e15].map(isoTime)).toEqual(Array(3).fill('9999-12-31T23:59:59.999Z'))
  })
})
