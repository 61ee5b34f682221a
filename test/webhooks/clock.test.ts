import {afterEach, describe, expect, it, vi} from 'vitest'
import {wallClockIso} from '../../src/webhooks/clock.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('wallClockIso', () => {
  it('follows the wall clock to the millisecond, though it keeps the string within one', () => {
    vi.useFakeTimers({toFake: ['Date']})
    vi.setSystemTime(new Date('2026-11-22T10:00:00.000Z'))
    expect(wallClockIso()).toBe('2026-11-22T10:00:00.000Z')
    expect(wallClockIso()).toBe('2026-11-22T10:00:00.000Z')
    vi.setSystemTime(new Date('2026-11-22T10:00:00.001Z'))
    expect(wallClockIso()).toBe('2026-11-22T10:00:00.001Z')
    vi.setSystemTime(new Date('2027-01-01T00:00:00.000Z'))
    expect(wallClockIso()).toBe('2027-01-01T00:00:00.000Z')
  })
})
