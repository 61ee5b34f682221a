import {readdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {CLI_ERROR_CODES} from '../../src/cli/error-codes.js'
import {ROOT} from '../helpers/cli.js'

/** Every `code: '…'` a CLI source file spells out, with the file it is in. */
async function codesIn(dir: string): Promise<[code: string, file: string][]> {
  const files = (await readdir(join(ROOT, dir), {recursive: true})).filter((f) => f.endsWith('.ts'))
  const found = await Promise.all(
    files.map(async (file) => {
      const text = await readFile(join(ROOT, dir, file), 'utf8')
      return [...text.matchAll(/\bcode: '([a-z_]+)'/g)].map(([, code]): [string, string] => [code!, join(dir, file)])
    }),
  )
  return found.flat()
}

describe('CLI error codes', () => {
  it('every code a command or the CLI layer reports is in the one list', async () => {
    const codes = [...(await codesIn('src/cli')), ...(await codesIn('src/commands'))]
    expect(codes.length).toBeGreaterThan(20)
    expect(codes.filter(([code]) => !(CLI_ERROR_CODES as readonly string[]).includes(code))).toEqual([])
  })

  it('lists each code once', () => {
    expect(new Set(CLI_ERROR_CODES).size).toBe(CLI_ERROR_CODES.length)
  })
})
