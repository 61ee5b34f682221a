import {createError} from 'h3'
import {describe, expect, it} from 'vitest'
import {DatabaseUnavailable, UnitGaveUp} from '../../../src/postgres/errors.js'
import {toApiError} from '../../../src/server/internal/errors.js'

describe('toApiError', () => {
  it('a database gone away is 503 storage_unavailable, even once the storage has healed, as h3 hands it over', () => {
    const gone = new DatabaseUnavailable(Object.assign(new Error('terminating'), {code: '57P01'}))
    for (const error of [toApiError(gone), toApiError(createError(gone))])
      expect([error.status, error.code]).toEqual([503, 'storage_unavailable'])
  })

  it('says what a code means where the code alone says little: a database that takes no writes', () => {
    const readOnly = new DatabaseUnavailable(Object.assign(new Error('read-only transaction'), {code: '25006'}))
    expect(toApiError(readOnly).message).toContain('cannot use its database (25006: it takes no writes')
  })

  it('a unit out of tries, its row held locked elsewhere, is 503 storage_unavailable naming the lock', () => {
    const locked = new UnitGaveUp(
      Object.assign(new Error('canceling statement due to lock timeout'), {code: '55P03'}),
      20,
    )
    const error = toApiError(createError(locked))
    expect([error.status, error.code]).toEqual([503, 'storage_unavailable'])
    expect(error.message).toContain('stayed locked by another session of the database for 20 s (55P03)')
  })

  it('anything else not ours is 500 internal_error', () => {
    expect(toApiError(new TypeError('x')).code).toBe('internal_error')
  })
})
