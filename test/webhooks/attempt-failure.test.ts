import {expect, it} from 'vitest'
import {AttemptFailures} from '../../src/webhooks/attempt-failure.js'

const LINE = /^\[tablepay\] delivery dlv_1: its attempt could not be recorded \(disk full\)\. It stays pending/

function failures() {
  const printed: string[] = []
  return {failures: new AttemptFailures((line) => printed.push(line)), printed}
}

it('a bug keeps its stack; a storage out of reach gets one line that says what becomes of the delivery', () => {
  const bug = new TypeError('x is undefined')
  const a = failures()
  a.failures.failed('dlv_1', bug, undefined)
  expect(a.printed).toEqual([`[tablepay] delivery dlv_1: ${bug.stack}`])
  const b = failures()
  b.failures.failed('dlv_1', new Error('disk full'), new Error('disk full'))
  expect(b.printed).toEqual([expect.stringMatching(LINE)])
  const c = failures()
  c.failures.failed('dlv_1', Object.assign(new Error('disk full'), {name: 'DatabaseUnavailable'}), undefined)
  expect(c.printed).toEqual([expect.stringMatching(LINE)])
})

it('prints one line per outage, and the count of the others once an attempt is recorded again; every bug still', () => {
  const {failures: log, printed} = failures()
  const gone = Object.assign(new Error('disk full'), {name: 'DatabaseUnavailable'})
  log.recorded()
  expect(printed).toEqual([])
  for (const id of ['dlv_1', 'dlv_2', 'dlv_3']) log.failed(id, gone, undefined)
  const bug = new TypeError('x is undefined')
  log.failed('dlv_4', bug, undefined)
  expect(printed).toEqual([expect.stringMatching(LINE), `[tablepay] delivery dlv_4: ${bug.stack}`])
  log.recorded()
  log.recorded()
  expect(printed.slice(2)).toEqual([
    '[tablepay] 2 more attempts could not be recorded while the storage was out of reach: each stays pending, and is attempted again.',
  ])
  // the next outage starts anew, and one alone is not counted
  log.failed('dlv_1', gone, undefined)
  log.recorded()
  expect(printed.slice(3)).toEqual([expect.stringMatching(LINE)])
})
