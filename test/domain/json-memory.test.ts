import {describe, expect, it} from 'vitest'
import {PARSED_MEMORY_MAX, parsedMemory, tooLargeToParse} from '../../src/domain/json-memory.js'

describe('parsedMemory', () => {
  it('weighs the objects, arrays, commas and colons outside strings, and the length', () => {
    // 3 containers (128 each), 1 comma (40), 7 characters
    expect(parsedMemory('[{},{}]')).toBe(3 * 128 + 40 + 7)
    // brackets, commas and colons in strings are text, past escaped quotes and backslashes too
    expect(parsedMemory('["{[,:]}"]')).toBe(128 + 10)
    expect(parsedMemory(String.raw`["a\"{,", "b\\", {}]`)).toBe(2 * 128 + 2 * 40 + 20)
    // a string left open weighs as text to the end
    expect(parsedMemory('["{,:')).toBe(128 + 5)
  })
})

describe('tooLargeToParse', () => {
  it('refuses a text of many small values, and takes one as long in long strings', () => {
    const values = Math.ceil(PARSED_MEMORY_MAX / (128 + 40))
    const small = `[${'{},'.repeat(values)}{}]`
    expect(tooLargeToParse(small)).toMatch(
      /^it would take up to 1\.\d\d GiB of memory once read, more than the 1\.75 GiB/,
    )
    const strings = JSON.stringify(['x'.repeat(small.length / 2), 'y'.repeat(small.length / 2)])
    expect([strings.length > small.length, tooLargeToParse(strings)]).toEqual([true, undefined])
  })
})
