import {Readable} from 'node:stream'
import {describe, expect, it, onTestFinished} from 'vitest'
import {lintFile} from '../../src/cli/lint/lint.js'
import {readJsonObject} from '../../src/cli/read-json.js'
import {readScenarioArg} from '../../src/cli/scenario-input.js'
import {readRawPayload} from '../../src/cli/signing/input.js'

/** `stdin` as process.stdin until the test ends: what the tests' commands, always piped, never have. */
function stdinAs(stdin: Readable): void {
  const saved = Object.getOwnPropertyDescriptor(process, 'stdin')!
  Object.defineProperty(process, 'stdin', {configurable: true, value: stdin})
  onTestFinished(() => void Object.defineProperty(process, 'stdin', saved))
}

/** Stdin as an interactive terminal. */
const stdinAsTerminal = () => stdinAs(Object.assign(Readable.from([]), {isTTY: true}))

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

describe('stdin that cannot be read (a directory: `< somedir`)', () => {
  const directory = () =>
    new Readable({
      read() {
        this.destroy(Object.assign(new Error('EISDIR: illegal operation on a directory, read'), {code: 'EISDIR'}))
      },
    })

  it.each([
    ['checks lint -', () => lintFile('-')],
    ['scenario run -', () => readScenarioArg('-')],
    ['verify without --payload', () => readRawPayload(undefined)],
  ])('%s: a wrong command line whose next step names no path to check', async (_, read) => {
    stdinAs(directory())
    await expect(read()).rejects.toMatchObject({
      message: 'Cannot read stdin: EISDIR: illegal operation on a directory, read',
      code: 'unreadable_input',
      oclif: {exit: 2},
      suggestions: ['Send a file or a pipe to stdin, or name the file instead.'],
    })
  })
})

/** What `< /dev/zero` gives: a MiB at a time, for good. */
function* zeros(): Generator<Buffer> {
  const mib = Buffer.alloc(1024 ** 2)
  for (;;) yield mib
}

describe('input that never ends (a device named by mistake) is refused past what any request takes', () => {
  const refusal = (source: string) => ({
    message: `Cannot read ${source}: it holds more than 256 MiB, more than any request takes`,
    code: 'unreadable_input',
    oclif: {exit: 2},
  })

  it('checks push -f /dev/zero: exit 2, unreadable_input, instead of filling the memory', async () => {
    await expect(readJsonObject('/dev/zero')).rejects.toMatchObject(refusal('/dev/zero'))
  })

  it('scenario run /dev/zero: exit 2, as any scenario file that cannot be read', async () => {
    await expect(readScenarioArg('/dev/zero')).rejects.toMatchObject({
      message: '/dev/zero cannot be read as a scenario: it holds more than 256 MiB, more than any request takes.',
      code: 'invalid_scenario',
      oclif: {exit: 2},
    })
  })

  it('stdin: the same refusal, naming no path', async () => {
    stdinAs(Readable.from(zeros()))
    await expect(readJsonObject(undefined)).rejects.toMatchObject({
      message: 'Cannot read stdin: it holds more than 256 MiB, more than any request takes',
      code: 'unreadable_input',
    })
  })

  it('checks lint reports it as the file it cannot read, and goes on with the others', async () => {
    expect(await lintFile('/dev/zero')).toMatchObject({
      valid: false,
      problems: [{path: '.', message: 'cannot read the file: it holds more than 256 MiB, more than any request takes'}],
    })
  })
})
