import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
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

test('openapi --output writes the file and says where; a bad path exits 1 saying what to do', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tablepay-openapi-'))
  try {
    const file = join(dir, 'openapi.json')
    const written = await runCommand(['openapi', '--output', file, '--json'])
    expect(JSON.parse(written.stdout)).toEqual({output: file, operations: OPERATIONS.length})
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(openApiDocument('http://127.0.0.1:4747'))
    const refused = await runCommand(['openapi', '--output', join(dir, 'missing', 'openapi.json')])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('Write to a directory that exists')
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
})
