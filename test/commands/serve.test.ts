import {existsSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type CliServer, runCli, spawnServe, startCliServer, WRITE_KEY} from '../helpers/cli.js'

describe('serve --json --memory', () => {
  it('prints one ready line with the /v1 URL and the seeded accounts, and exits 0 on SIGTERM', async () => {
    const server = await startCliServer()
    expect(server.ready).toMatchObject({status: 'ready', data_dir: null})
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(server.ready.accounts[0]).toMatchObject({id: 'acct_demo', locations: [{id: 'loc_main', name: 'Main Room'}]})
    expect(server.ready.accounts[0]!.api_keys.map((k) => k.key)).toEqual(['tp_test_demo_write', 'tp_test_demo_read'])
    expect((await fetch(`${server.url}/health`)).status).toBe(200)

    expect(await server.stop()).toBe(0)
    expect(server.stdout().trimEnd().split('\n')).toHaveLength(1)
  })
})

describe('serve --data DIR', () => {
  let dir: string
  let server: CliServer

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
    server = await startCliServer(['--data', dir, '--seed', 'fixtures/seed.json'])
  })

  afterAll(async () => {
    await server.stop()
    await rm(dir, {recursive: true, force: true})
  })

  it('refuses a second server on the same dir with a clear message and a non-zero exit', async () => {
    const second = await runCli(['serve', '--port', '0', '--data', dir])
    expect(second.code).not.toBe(0)
    expect(second.stderr).toContain('in use by another tablepay server')
    expect(second.stderr).toContain('server_start_failed')
  })

  it('with --json, the refusal is a JSON error body', async () => {
    const second = await runCli(['serve', '--port', '0', '--data', dir, '--json'])
    expect(second.code).toBe(1)
    expect(JSON.parse(second.stdout).error).toMatchObject({code: 'server_start_failed', message: expect.stringContaining('in use')})
  })

  it('lets clients pointed at the dir find the URL and a write key without flags', async () => {
    const {code, stdout} = await runCli(['locations', 'list', '--json'], {env: {TABLEPAY_DATA: dir}})
    expect(code).toBe(0)
    expect(JSON.parse(stdout).data.map((l: {id: string}) => l.id)).toEqual(['loc_main'])
  })
})

describe('serve without --json', () => {
  it('prints a banner with the URL, the data dir, the keys and a curl example', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tablepay-serve-'))
    const server = spawnServe(['--data', dir, '--seed', 'fixtures/seed.json'])
    try {
      const text = await server.waitForOutput('Press Ctrl+C')
      expect(text).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1/)
      expect(text).toContain(dir)
      expect(text).toMatch(/write key\s+tp_test_demo_write/)
      expect(text).toMatch(/read key\s+tp_test_demo_read/)
      expect(text).toContain(`curl -H "Authorization: Bearer ${WRITE_KEY}"`)
      expect(existsSync(join(dir, 'server.json'))).toBe(true)
    } finally {
      expect(await server.stop()).toBe(0)
      expect(existsSync(join(dir, 'server.json'))).toBe(false)
      await rm(dir, {recursive: true, force: true})
    }
  })
})
