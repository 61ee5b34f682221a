import {open} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {Readable} from 'node:stream'
import {describe, expect, it, onTestFinished} from 'vitest'
import {lintFile} from '../../src/cli/lint/lint.js'
import {readJsonObject} from '../../src/cli/read-json.js'
import {readScenarioArg} from '../../src/cli/scenario-input.js'
import {runCli} from '../helpers/cli.js'

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
  // Node ends such a stdin at once, as if it were empty: only a real one shows that it is refused all the same
  it.each([
    ['checks lint -', ['checks', 'lint', '-']],
    ['scenario run -', ['scenario', 'run', '-']],
    ['verify without --payload', ['verify', '--secret', 'whsec_x', '-H', 't=1,v1=ab']],
  ])('%s: a wrong command line whose next step names no path to check', async (_, args) => {
    const directory = await open(tmpdir(), 'r')
    try {
      const {code, stdout, stderr} = await runCli([...args, '--json'], {stdinFd: directory.fd})
      expect(code).toBe(2)
      expect(stderr).toBe('')
      expect(JSON.parse(stdout)).toEqual({
        error: {
          code: 'unreadable_input',
          message: 'Cannot read stdin: EISDIR: illegal operation on a directory, read',
          suggestions: ['Send a file or a pipe to stdin, or name the file instead.'],
        },
      })
    } finally {
      await directory.close()
    }
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
