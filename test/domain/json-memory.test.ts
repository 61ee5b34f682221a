import {describe, expect, it} from 'vitest'
import {PARSED_MEMORY_MAX, tooLargeToParse, WRITTEN_MAX, weigh} from '../../src/domain/json-memory.js'

describe('weigh', () => {
  it('weighs the objects, arrays, commas and colons outside strings, and the length', () => {
    // 3 containers (128 each), 1 comma (40), 7 characters
    expect(weigh('[{},{}]').memory).toBe(3 * 128 + 40 + 7)
    // brackets, commas and colons in strings are text, past escaped quotes and backslashes too
    expect(weigh('["{[,:]}"]').memory).toBe(128 + 10)
    expect(weigh(String.raw`["a\"{,", "b\\", {}]`).memory).toBe(2 * 128 + 2 * 40 + 20)
    // a string left open weighs as text to the end
    expect(weigh('["{,:').memory).toBe(128 + 5)
  })

  it('counts what each number sent with an exponent may gain written back, and nothing for an e elsewhere', () => {
    // 1e20, 2.5E-7 and 3e+2: 23 each; true, false and "1e5" in a string: none
    const text = '[1e20,2.5E-7,3e+2,true,false,"1e5",100]'
    expect(weigh(text).written).toBe(text.length + 3 * 23)
    // no number JSON.stringify writes is longer than that gain allows
    for (const sent of ['1e20', '-9.99e20', '1.5e-6', '-1.7976931348623157e308', '5e-324'])
      expect(JSON.stringify(JSON.parse(sent)).length).toBeLessThanOrEqual(sent.length + 23)
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

  it('refuses a text whose numbers written back would be longer than a document may be written as', () => {
    const numbers = Math.ceil(WRITTEN_MAX / (23 + 5))
    const text = `[${'1e20,'.repeat(numbers)}1]`
    expect(tooLargeToParse(text)).toMatch(/^its numbers sent with an exponent \(1e20\) would be written back with all/)
    expect(tooLargeToParse(text.replaceAll('1e20', '1000'))).toBeUndefined()
  })
})
