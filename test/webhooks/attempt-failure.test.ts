import {expect, it} from 'vitest'
import {attemptFailure} from '../../src/webhooks/attempt-failure.js'

it('a bug keeps its stack; a storage out of reach gets one line that says what becomes of the delivery', () => {
  const bug = new TypeError('x is undefined')
  expect(attemptFailure('dlv_1', bug, undefined)).toBe(`[tablepay] delivery dlv_1: ${bug.stack}`)
  const line = /^\[tablepay\] delivery dlv_1: its attempt could not be recorded \(disk full\)\. It stays pending/
  expect(attemptFailure('dlv_1', new Error('disk full'), new Error('disk full'))).toMatch(line)
  const gone = Object.assign(new Error('disk full'), {name: 'DatabaseUnavailable'})
  expect(attemptFailure('dlv_1', gone, undefined)).toMatch(line)
})
