import {afterEach, describe, expect, it, vi} from 'vitest'
import {isoTime, MAX_CLOCK_OFFSET_MS} from '../../src/domain/timestamps.js'
import {SchedulerClock, wallClockIso} from '../../src/webhooks/clock.js'

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

describe('SchedulerClock.offsetFor', () => {
  it('moves the offset no further than an import takes back: the clock reads as the last time long before', () => {
    const near = new SchedulerClock(1, MAX_CLOCK_OFFSET_MS - 10, () => 0)
    expect(near.offsetFor(near.now() + 1_000)).toBe(MAX_CLOCK_OFFSET_MS)
    near.moveTo(near.now() + 1_000)
    expect(near.offset).toBe(MAX_CLOCK_OFFSET_MS)
    // one saved past it by an earlier version is kept: the clock never goes back
    const past = new SchedulerClock(1, MAX_CLOCK_OFFSET_MS + 2048, () => 0)
    expect(past.offsetFor(past.now() + 1_000)).toBe(MAX_CLOCK_OFFSET_MS + 2048)
  })
})

describe('isoTime', () => {
  it('writes no time past the end of year 9999: a scheduler clock advanced or sped up past it reads as that time', () => {
    const wall = {now: Date.parse('2026-11-22T10:00:00.000Z')}
    const last = '9999-12-31T23:59:59.999Z'
    const advanced = new SchedulerClock(1, 9e15, () => wall.now)
    expect(isoTime(advanced.now())).toBe(last)
    const fast = new SchedulerClock(1e9, 0, () => wall.now)
    wall.now += 1_000_000
    expect(isoTime(fast.now())).toBe(last)
    expect(isoTime(fast.now() + 60_000)).toBe(last)
    expect(isoTime(Date.parse(last) - 1)).toBe('9999-12-31T23:59:59.998Z')
  })
})
