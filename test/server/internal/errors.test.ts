import {describe, expect, it} from 'vitest'
import {DatabaseUnavailable} from '../../../src/postgres/errors.js'
import {toApiError} from '../../../src/server/internal/errors.js'

describe('toApiError', () => {
  it('a database gone away is 503 storage_unavailable, even once the storage has healed', () => {
    const error = toApiError(new DatabaseUnavailable(Object.assign(new Error('terminating'), {code: '57P01'})))
    expect([error.status, error.code]).toEqual([503, 'storage_unavailable'])
  })

  it('anything else not ours is 500 internal_error', () => {
    expect(toApiError(new TypeError('x')).code).toBe('internal_error')
  })
})
