import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {type RulesetDefinition, Spectral} from '@stoplight/spectral-core'
import {oas} from '@stoplight/spectral-rulesets'
import {expect, test} from 'vitest'
import {OPERATIONS} from '../../src/server/operations.js'
import {openApiDocument} from '../../src/server/openapi.js'
import {runCommand} from '../helpers/cli.js'

test('openapi prints the document, naming the default server or --server-url, with or without --json', async () => {
  const plain = await runCommand(['openapi'])
  expect(plain.code).toBe(0)
  expect(JSON.parse(plain.stdout)).toEqual(openApiDocument('http://127.0.0.1:4747'))
  const json = await runCommand(['openapi', '--json', '--server-url', 'http://127.0.0.1:4848'])
  expect(JSON.parse(json.stdout)).toEqual(openApiDocument('http://127.0.0.1:4848'))
})

test('openapi --server-url takes the URL as serve prints it, with /v1', async () => {
  const {stdout} = await runCommand(['openapi', '--json', '--server-url', 'http://127.0.0.1:4848/v1'])
  expect(JSON.parse(stdout).servers).toEqual([{url: 'http://127.0.0.1:4848/v1'}])
})

test('openapi --server-url refuses what no client could call, as --url does (exit 2)', async () => {
  for (const [url, problem] of [
    ['javascript:alert(1)', 'is not an http(s) URL'],
    ['127.0.0.1:4848', 'is not an http(s) URL'],
    ['http://127.0.0.1:4848/?q=1#f', 'holds a query or fragment'],
  ] as const) {
    const refused = await runCommand(['openapi', '--server-url', url])
    expect(refused.code, url).toBe(2)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toContain(`"${url}" ${problem}`)
  }
})

test('openapi --output writes the file and says where; a bad path exits 1 saying what to do', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tablepay-openapi-'))
  try {
    const file = join(dir, 'openapi.json')
    const written = await runCommand(['openapi', '--output', file, '--json'])
    // each route, and HEAD beside each GET
    const operations = OPERATIONS.length + OPERATIONS.filter((op) => op.method === 'get').length
    expect(JSON.parse(written.stdout)).toEqual({output: file, operations})
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(openApiDocument('http://127.0.0.1:4747'))
    // the file's name as given, a control character of it escaped (as snapshots export prints its own)
    const hostile = await runCommand(['openapi', '--output', join(dir, 'a\u001b[2Jb.json')])
    expect(hostile.stdout).toBe(
      `Wrote the OpenAPI 3.1 document (${operations} operations) to ${join(dir, 'a\\u001b[2Jb.json')}.\n`,
    )
    const refused = await runCommand(['openapi', '--output', join(dir, 'missing', 'openapi.json')])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('Write to a directory that exists')
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
})

/**
 * Warnings of spectral's `spectral:oas` the API cannot avoid: a 405 answers a method a path does not take,
 * and what Node's HTTP parser refuses is answered before any route: no operation can describe those.
 */
const ACCEPTED_SPECTRAL_WARNINGS = [
  'ExpectationFailed',
  'HeadersTooLarge',
  'MalformedRequest',
  'MethodNotAllowed',
  'RequestTimeout',
].map((name) => `oas3-unused-component components.responses.${name}`)

test("spectral's spectral:oas ruleset finds no error in the document, and no warning but the accepted ones", async () => {
  const spectral = new Spectral()
  spectral.setRuleset({extends: [oas as RulesetDefinition]})
  const results = await spectral.run(JSON.stringify(openApiDocument('http://127.0.0.1:4747'), null, 2))
  const described = (r: (typeof results)[number]) => `${r.code} ${r.path.join('.')}`
  // severity 0 is an error, 1 a warning
  expect(results.filter((r) => r.severity === 0).map((r) => `${described(r)}: ${r.message}`)).toEqual([])
  expect(results.map(described).sort()).toEqual(ACCEPTED_SPECTRAL_WARNINGS)
})
