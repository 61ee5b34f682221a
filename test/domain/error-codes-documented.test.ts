import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ERROR_STATUS} from '../../src/domain/errors.js'
import {ROOT} from '../helpers/cli.js'

/** The `| status | code | when |` rows of the README's "Errors" table: each code with the statuses it names. */
async function readmeErrorRows(): Promise<Map<string, string>> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('\n## Errors\n'))
  const rows = new Map<string, string>()
  for (const [, statuses, code] of section.matchAll(/^\| ([\d, ]+) \| `([a-z_]+)` \|/gm)) {
    rows.set(code!, `${rows.get(code!) ?? ''} ${statuses}`)
  }
  return rows
}

describe("the README's Errors table (CONTRIBUTING.md: every code gets a line there)", () => {
  it('has a row for every code the API answers with, at its status', async () => {
    const rows = await readmeErrorRows()
    const missing = Object.entries(ERROR_STATUS)
      .filter(([code, status]) => !rows.get(code)?.includes(String(status)))
      .map(([code, status]) => `${status} ${code}`)
    expect(missing).toEqual([])
  })

  it('names no code the API does not have', async () => {
    const unknown = [...(await readmeErrorRows()).keys()].filter((code) => !Object.hasOwn(ERROR_STATUS, code))
    expect(unknown).toEqual([])
  })
})
