import {describe, expect, it} from 'vitest'
import {queryable, unqueryableAt} from '../../src/domain/queryable-text.js'

describe('text PostgreSQL can query in a record', () => {
  it('is any string without a NUL or an unpaired surrogate: a pair, an emoji, other control characters pass', () => {
    const passing = ['', 'plain', 'é😀', '\ud800\udc00', '\u0001\u001f\uffff']
    const refused = ['a\u0000', '\ud800', 'a\ud800b', '\udc00', '\udc00\ud800', '😀\udfff']
    expect(passing.filter((text) => !queryable(text))).toEqual([])
    expect(refused.filter(queryable)).toEqual([])
  })

  it('names the path of the first key or string that is not, through objects and arrays', () => {
    expect(unqueryableAt({a: 1, b: [{c: 'ok'}, {d: 'x\ud800'}]})).toEqual(['b', 1, 'd'])
    expect(unqueryableAt({['k\u0000']: 'ok'})).toEqual(['k\u0000'])
    expect(unqueryableAt({a: ['😀', null, 2]})).toBeUndefined()
  })
})
