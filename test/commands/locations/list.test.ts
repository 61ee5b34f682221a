import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {freePort} from '../../helpers/ports.js'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../../helpers/api-server.js'
import {runCommand, WRITE_KEY} from '../../helpers/cli.js'

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer()
})
afterAll(() => server.stop())

describe('locations list', () => {
  it('prints a table of id, name, timezone and currency', async () => {
    const {code, stdout, stderr} = await runCommand(['locations', 'list'], {env: server.env})
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const [header, row] = stdout.trimEnd().split('\n')
    expect(header!.split(/\s{2,}/)).toEqual(['ID', 'NAME', 'TIMEZONE', 'CURRENCY'])
    expect(row!.split(/\s{2,}/)).toEqual(['loc_main', 'Main Room', 'Europe/Paris', 'EUR'])
  })

  it('with --json prints the list resource and nothing else', async () => {
    const {code, stdout} = await runCommand(['locations', 'list', '--json'], {env: server.env})
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({
      object: 'list',
      has_more: false,
      data: [{id: 'loc_main', object: 'location', name: 'Main Room', timezone: 'Europe/Paris', currency: 'EUR'}],
    })
  })
})

describe('finding the server and the key', () => {
  it('takes both from TABLEPAY_URL and TABLEPAY_API_KEY', async () => {
    const {code} = await runCommand(['locations', 'list'], {
      env: {TABLEPAY_URL: server.url, TABLEPAY_API_KEY: WRITE_KEY},
    })
    expect(code).toBe(0)
  })

  it('prefers --url and --api-key to the environment, and accepts the URL without /v1', async () => {
    const base = server.url.replace(/\/v1$/, '')
    const env = {TABLEPAY_URL: 'http://127.0.0.1:9', TABLEPAY_API_KEY: 'tp_test_not_a_key'}
    const {code, stdout} = await runCommand(['locations', 'list', '--url', base, '-k', WRITE_KEY], {env})
    expect(code).toBe(0)
    expect(stdout).toContain('loc_main')
  })

  it('takes both from server.json in TABLEPAY_DATA', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-config-'))
    await writeFile(
      join(dir, 'server.json'),
      JSON.stringify({url: server.url.replace(/\/v1$/, ''), pid: 1, api_key: WRITE_KEY}),
    )
    try {
      const {code, stdout} = await runCommand(['locations', 'list'], {env: {TABLEPAY_DATA: dir}})
      expect(code).toBe(0)
      expect(stdout).toContain('loc_main')
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it('without any key, says how to provide one', async () => {
    const {code, stderr} = await runCommand(['locations', 'list'], {env: {TABLEPAY_URL: server.url}})
    expect(code).toBe(1)
    expect(stderr).toContain(`${server.url.replace(/\/v1$/, '')}: a server answers, but its keys are not known here`)
    expect(stderr).toContain('Pass --api-key or set TABLEPAY_API_KEY')
    expect(stderr).toContain('missing_api_key')
  })

  it('with no server at the URL, says to start one', async () => {
    const url = `http://127.0.0.1:${await freePort()}`
    const {code, stderr} = await runCommand(['locations', 'list', '--url', url, '-k', WRITE_KEY])
    expect(code).toBe(1)
    expect(stderr).toContain(
      `No tablepay server at ${url}. Start one with \`tablepay serve\`, or give the client another URL (--url).`,
    )
  })

  it('with an unknown key, exits 1 with the unauthenticated code', async () => {
    const {code, stdout} = await runCommand(['locations', 'list', '--json'], {
      env: {...server.env, TABLEPAY_API_KEY: 'tp_test_unknown'},
    })
    expect(code).toBe(1)
    expect(JSON.parse(stdout).error).toMatchObject({code: 'unauthenticated', request_id: expect.any(String)})
  })

  it('with an unknown key given, says to pass another, not to pass one', async () => {
    const {code, stderr} = await runCommand(['locations', 'list', '-k', 'tp_test_unknown'], {env: server.env})
    expect(code).toBe(1)
    const said = stderr.replace(/\s*\n[\s›]*/g, ' ')
    expect(said).toContain('Pass another with --api-key or TABLEPAY_API_KEY.')
    expect(said).not.toContain('Pass it with')
  })
})
