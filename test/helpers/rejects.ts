import {expect} from 'vitest'
import {ApiError} from '../../src/domain/errors.js'

/** Runs `fn`, expects it to throw the ApiError `code`, and returns that error for more assertions. */
export function rejects(fn: () => unknown, code: string): ApiError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).code).toBe(code)
    return error as ApiError
  }
  throw new Error(`expected ${code}, nothing was thrown`)
}
