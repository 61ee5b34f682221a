import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../../helpers/api-server.js'
import {runCommand} from '../../helpers/cli.js'

let server: ApiServer
let pushed: {id: string; external_id: string}
beforeAll(async () => {
  server = await startApiServer()
  const {stdout} = await runCommand(['checks', 'push', 't12', '-f', 'fixtures/checks/open.json', '--json'], {
    env: server.env,
  })
  pushed = JSON.parse(stdout)
})
afterAll(() => server.stop())

const get = (args: string[]) => runCommand(['checks', 'get', ...args], {env: server.env})

describe('checks get', () => {
  it('quotes a long wrong id cut, with its length: a whole file pasted as the id does not bury the message', async () => {
    const {code, stderr} = await get(['a'.repeat(100_000)])
    expect(code).toBe(2)
    const said = stderr.replace(/\s*\n[\s›]*/g, ' ')
    expect(said).toContain(`"${'a'.repeat(100)}…" (100000 characters) is not its id`)
    expect(said).toContain('Code: invalid_usage')
    expect(stderr.length).toBeLessThan(2000)
  })

  it('by id prints the summary, the items and the totals', async () => {
    const {code, stdout} = await get([pushed.id])
    expect(code).toBe(0)
    expect(stdout).toContain(`Check ${pushed.id}`)
    expect(stdout).toMatch(/line-1002\s+Steak frites\s+2\s+26\.00\s+0\s+one medium-rare, one well done/)
    expect(stdout).toMatch(/Subtotal\s+71\.50\nTax\s+7\.15\nTotal\s+78\.65/)
  })

  it('with --json prints the same resource the push returned', async () => {
    const {code, stdout} = await get([pushed.id, '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual(pushed)
  })

  it('takes an id without the chk_ prefix as the external id', async () => {
    const {code, stdout} = await get(['t12', '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).id).toBe(pushed.id)
  })

  it('with --external reads the id as an external id', async () => {
    const {code, stdout} = await get(['--external', 't12', '--json'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).id).toBe(pushed.id)
  })

  it('an unknown check exits 1 with not_found', async () => {
    const {code, stderr} = await get(['chk_does_not_exist'])
    expect(code).toBe(1)
    expect(stderr).toContain('Code: not_found')
  })
})
