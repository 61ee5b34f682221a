import {describe, expect, it} from 'vitest'
import {formatDuration, parseDuration, wholeSeconds} from '../../src/domain/duration.js'

describe('parseDuration and formatDuration', () => {
  it.each([
    ['90', 90],
    ['500ms', 0.5],
    ['1h30m', 5400],
    ['1d', 86_400],
  ])('%s is %d seconds, and reads back from its text', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds)
    expect(parseDuration(formatDuration(seconds))).toBe(seconds)
  })

  it('writes seconds past 2^53 ms exactly, and rounds to the millisecond: 1.9996 s is 2s', () => {
    expect(formatDuration(Number.MAX_SAFE_INTEGER)).toBe('104249991374d7h36m31s')
    expect([formatDuration(1.9996), formatDuration(90.5)]).toEqual(['2s', '1m30s500ms'])
  })

  it('refuses what is not a duration, saying how to write one', () => {
    for (const text of ['soon', '5 m', '1h-', '-1s', ''])
      expect(() => parseDuration(text)).toThrow(/write it like 90, 500ms/)
  })
})

describe('wholeSeconds', () => {
  it('takes any duration of whole seconds, 0 among them, a fraction written so included (0.1m)', () => {
    expect([wholeSeconds('300', 86_400), wholeSeconds('5m', 86_400), wholeSeconds('0', 1)]).toEqual([300, 300, 0])
    expect(wholeSeconds('0.1m', 86_400)).toBe(6)
    expect(wholeSeconds('2000ms', 86_400)).toBe(2)
    expect(wholeSeconds(String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER)
  })

  it('refuses a fraction of a second and what passes its most, quoting the text', () => {
    expect(() => wholeSeconds('1.5s', 86_400)).toThrow('"1.5s" is not whole seconds: write it like 300, 45s, 5m or 1h')
    for (const fraction of ['500ms', '0.4ms', '1000.4ms', '1.0004s'])
      expect(() => wholeSeconds(fraction, 86_400), fraction).toThrow('not whole seconds')
    expect(() => wholeSeconds('1d1s', 86_400)).toThrow('"1d1s" is longer than 1d')
  })
})
