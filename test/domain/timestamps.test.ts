import {describe, expect, it} from 'vitest'
import {isoTime} from '../../src/domain/timestamps.js'

describe('isoTime', () => {
  it('formats each millisecond as Date does, whatever was formatted before it', () => {
    const times = [0, 1_795_000_000_123, 1_795_000_000_123, 1_795_000_000_124, 0, -1, 8.64e15]
    expect(times.map(isoTime)).toEqual(times.map((ms) => new Date(ms).toISOString()))
  })
})
