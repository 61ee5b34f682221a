import {Readable} from 'node:stream'
import {describe, expect, it, onTestFinished} from 'vitest'
import {lintFile} from '../../src/cli/lint/lint.js'
import {readScenarioArg} from '../../src/cli/scenario-input.js'

/** Stdin as an interactive terminal, until the test ends: what the tests' commands, always piped, never have. */
function stdinAsTerminal(): void {
  const saved = Object.getOwnPropertyDescriptor(process, 'stdin')!
  const terminal = Object.assign(Readable.from([]), {isTTY: true})
  Object.defineProperty(process, 'stdin', {configurable: true, value: terminal})
  onTestFinished(() => void Object.defineProperty(process, 'stdin', saved))
}

describe('- at an interactive terminal', () => {
  it('checks lint refuses it at once, where it would wait for a pipe: exit 2, missing_input', async () => {
    stdinAsTerminal()
    await expect(lintFile('-')).rejects.toMatchObject({
      message: 'No JSON to read: pass a file instead of -, or pipe the JSON on stdin.',
      code: 'missing_input',
      oclif: {exit: 2},
    })
  })

  it('scenario run and validate refuse it at once: exit 2, missing_input', async () => {
    stdinAsTerminal()
    await expect(readScenarioArg('-')).rejects.toMatchObject({
      message: 'No scenario to read: pass a file or a name instead of -, or pipe the scenario on stdin.',
      code: 'missing_input',
      oclif: {exit: 2},
    })
  })
})
