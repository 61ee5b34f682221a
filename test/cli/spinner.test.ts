import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {spinnerShown} from '../../src/cli/views/spinner.js'
import {stderrAsTerminal} from '../helpers/terminal.js'

// a person at a terminal, colours on, whatever the test run's own environment says
let noColor: string | undefined
beforeEach(() => {
  noColor = process.env.NO_COLOR
  delete process.env.NO_COLOR
})
afterEach(() => {
  if (noColor !== undefined) process.env.NO_COLOR = noColor
})

describe('spinnerShown', () => {
  it('shows none on a terminal of 0 columns (an unsized pty), where ora would clear lines forever', () => {
    const restore = stderrAsTerminal({columns: 0})
    try {
      expect(spinnerShown()).toBe(false)
    } finally {
      restore()
    }
  })

  it('shows one on a sized terminal, never with --json or NO_COLOR', () => {
    const restore = stderrAsTerminal()
    try {
      expect(spinnerShown()).toBe(true)
      expect(spinnerShown(true)).toBe(false)
      process.env.NO_COLOR = '1'
      expect(spinnerShown()).toBe(false)
    } finally {
      delete process.env.NO_COLOR
      restore()
    }
  })
})
