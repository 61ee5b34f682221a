import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {runLean} from '../../src/cli/lean-entry.js'
import {signPayload} from '../../src/index.js'
import {ROOT} from '../helpers/cli.js'

// the command lines the lean path takes itself, and those it hands to oclif untouched (build first: it reads
// dist/cli/lean-flags.json); that both give the same output is test/cli/lean-entry.test.ts's
const SECRET = 'whsec_test_lean_flags_1c9e'
const PAYLOAD = 'fixtures/checks/open.json'
const T = 1_700_000_000
const HEADER = signPayload(readFileSync(join(ROOT, PAYLOAD)), SECRET, T)
const TOLERANCE = String(Math.floor(Date.now() / 1000) - T + 3600)

afterEach(() => {
  vi.restoreAllMocks()
  process.exitCode = undefined
})

/** Whether the lean path ran `argv`, and what it printed. */
async function lean(argv: string[]): Promise<{handled: boolean; printed: string[]}> {
  const printed: string[] = []
  vi.spyOn(console, 'log').mockImplementation((text: string) => void printed.push(text))
  return {handled: await runLean(argv, ROOT), printed}
}

describe('the lean path reads flags as oclif does', () => {
  it.each([
    ['long flags and their values', ['--secret', SECRET, '--header', HEADER, '--payload', PAYLOAD]],
    ['long flags with =', [`--secret=${SECRET}`, `--header=${HEADER}`, `--payload=${PAYLOAD}`]],
    ['short flags', ['-s', SECRET, '-H', HEADER, '-p', PAYLOAD]],
    ['flags in any order, --json among them', ['--json', '-p', PAYLOAD, '-H', HEADER, '-s', SECRET]],
  ])('runs verify itself with %s', async (_, flags) => {
    const {handled, printed} = await lean(['verify', ...flags, '--tolerance', TOLERANCE])
    expect(handled).toBe(true)
    expect(printed.join('\n')).toMatch(/valid/i)
    expect(process.exitCode ?? 0).toBe(0)
  })

  it.each([
    ['a short flag glued to its value', ['-s' + SECRET, '-H', HEADER, '-p', PAYLOAD]],
    ['short flags run together', ['-sp', SECRET, '-H', HEADER]],
    ['a short flag with =', [`-s=${SECRET}`, '-H', HEADER, '-p', PAYLOAD]],
    ['a flag given twice', ['-s', SECRET, '--secret', SECRET, '-H', HEADER, '-p', PAYLOAD]],
    ['a boolean given a value', ['-s', SECRET, '-H', HEADER, '-p', PAYLOAD, '--json=true']],
    ['a flag without its value', ['-s', SECRET, '-p', PAYLOAD, '-H']],
    ['a value that looks like a flag', ['-s', SECRET, '-H', HEADER, '-p', '--json']],
    ['a value after = that looks like a flag', ['-s', SECRET, '-H', HEADER, '--payload=--json']],
    ['an empty value', ['-s', SECRET, '-H', HEADER, '--payload=']],
    ['an argument', ['-s', SECRET, '-H', HEADER, '-p', PAYLOAD, 'body.json']],
    ['the end of flags, --', ['-s', SECRET, '-H', HEADER, '-p', PAYLOAD, '--']],
    ['an unknown flag', ['-s', SECRET, '-H', HEADER, '-p', PAYLOAD, '--nope']],
    ['a negated boolean', ['-s', SECRET, '-H', HEADER, '-p', PAYLOAD, '--no-json']],
    ['help', ['--help']],
    ['a tolerance oclif refuses', ['-s', SECRET, '-H', HEADER, '-p', PAYLOAD, '--tolerance', 'soon']],
  ])('hands verify with %s to oclif, having done nothing', async (_, flags) => {
    const {handled, printed} = await lean(['verify', ...flags])
    expect(handled).toBe(false)
    expect(printed).toEqual([])
  })

  it('signs with -t itself, and hands --forward-to, by its alias --post too, to oclif', async () => {
    // sign --forward-to (alias --post) waits for a receiver: never lean, whichever name gives it
    expect((await lean(['sign', '-s', SECRET, '-p', PAYLOAD, '--post', 'http://127.0.0.1:9/x'])).handled).toBe(false)
    const signed = await lean(['sign', '-s', SECRET, '-p', PAYLOAD, '-t', String(T), '--json'])
    expect(signed.handled).toBe(true)
    expect(JSON.parse(signed.printed.join('\n'))).toMatchObject({header: HEADER})
  })
})
