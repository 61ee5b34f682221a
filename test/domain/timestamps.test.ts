import {describe, expect, it} from 'vitest'
import {TimestampInput} from '../../src/domain/instants.js'
import {isoTime} from '../../src/domain/timestamps.js'

describe('isoTime', () => {
  it('formats each millisecond as Date does, whatever was formatted before it, up to the end of year 9999', () => {
    const last = Date.parse('9999-12-31T23:59:59.999Z')
    const times = [0, 1_795_000_000_123, 1_795_000_000_123, 1_795_000_000_124, 0, -1, last]
    expect(times.map(isoTime)).toEqual(times.map((ms) => new Date(ms).toISOString()))
    expect([last + 1, 8.64e15, 9e15].map(isoTime)).toEqual(Array(3).fill('9999-12-31T23:59:59.999Z'))
  })
})

describe('TimestampInput', () => {
  it('reads any RFC 3339 offset, T and Z in either case, a leap second at 23:59 UTC as the second before it, in UTC years 0001-9999', () => {
    const read = (text: string) => TimestampInput.safeParse(text).data
    expect(read('2020-01-01T01:00:00+01:00')).toBe('2020-01-01T00:00:00.000Z')
    expect(read('2020-01-01t00:00:00.5z')).toBe('2020-01-01T00:00:00.500Z')
    expect(read('2016-12-31T23:59:60Z')).toBe('2016-12-31T23:59:59.000Z')
    expect(read('2016-12-31T23:59:61Z')).toBeUndefined()
    // a leap second comes at 23:59 UTC, under whatever offset (RFC 3339's own example), and nowhere else
    expect(read('1990-12-31T15:59:60-08:00')).toBe('1990-12-31T23:59:59.000Z')
    expect(read('2016-12-31T12:34:60Z')).toBeUndefined()
    expect(read('2016-12-31T23:59:60+01:00')).toBeUndefined()
    expect(read('2016-12-31T23:59:59')).toBeUndefined()
    // in years 0001 to 9999 once in UTC, as every timestamp is stored
    expect(read('9999-12-31T23:59:59-01:00')).toBeUndefined()
    expect(read('0001-01-01T00:00:00+01:00')).toBeUndefined()
    expect(read('9999-12-31T23:59:59+01:00')).toBe('9999-12-31T22:59:59.000Z')
  })
})
