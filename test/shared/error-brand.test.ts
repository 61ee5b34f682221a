import {expect, test} from 'vitest'
import {brand} from '../../src/shared/error-brand.js'

/** A base and a subclass, defined twice as the two module formats define them, and a subclass of a user's. */
function copy() {
  class Base extends Error {
    static {
      brand(this, 'test.Base')
    }
  }
  class Sub extends Base {
    static {
      brand(this, 'test.Sub')
    }
  }
  class Users extends Sub {}
  return {Base, Sub, Users}
}

test("an instance of a branded class is an instance of the other copy's class and of those above it, not below", () => {
  const [one, other] = [copy(), copy()]
  expect([new one.Sub() instanceof other.Sub, new one.Sub() instanceof other.Base]).toEqual([true, true])
  expect([new one.Base() instanceof other.Sub, new one.Base() instanceof other.Base]).toEqual([false, true])
  const unrelated: unknown[] = [new Error(), 'test.Base', null]
  expect(unrelated.map((value) => value instanceof other.Base)).toEqual([false, false, false])
})

test("a user's subclass of a branded class keeps plain instanceof: its own instances only, of its own copy", () => {
  const [one, other] = [copy(), copy()]
  expect([new one.Users() instanceof one.Users, new one.Users() instanceof one.Sub]).toEqual([true, true])
  expect([new one.Sub() instanceof one.Users, new one.Users() instanceof other.Users]).toEqual([false, false])
  expect(new one.Users() instanceof other.Sub).toBe(true)
})
