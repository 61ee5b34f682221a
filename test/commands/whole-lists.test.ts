import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor, type CliServer, startCliServer} from '../helpers/cli.js'
import {call, makeTempDir, TEST_SEED, writeSeed} from '../helpers/simulator.js'

// past one page of the server's (20 by default, 100 at most)
const LOCATIONS = 25
const FAULTS = 25
const SNAPSHOTS = 105

let server: CliServer
beforeAll(async () => {
  const [account] = TEST_SEED.accounts
  const locations = Array.from({length: LOCATIONS}, (_, i) => ({
    id: `loc_${i}`,
    name: `Room ${i}`,
    timezone: 'Europe/Paris',
    currency: 'EUR',
  }))
  const seed = await writeSeed(await makeTempDir(), {accounts: [{...account!, locations}]})
  server = await startCliServer(['--memory', '--seed', seed])
  const api = (path: string, body: unknown) => call(server.url.replace(/\/v1$/, ''), 'POST', `/v1${path}`, {body})
  for (let i = 0; i < FAULTS; i++)
    expect((await api('/sim/faults', {status: 503, match: {path: `/v1/claims/clm_none${i}`}})).status).toBe(201)
  for (let i = 0; i < SNAPSHOTS; i++) expect((await api('/sim/snapshots', {name: `s${i}`})).status).toBe(201)
})
afterAll(() => server.stop())

describe('the lists a command shows whole, having no paging flags', () => {
  it.each([
    ['locations', LOCATIONS],
    ['faults', FAULTS],
    ['snapshots', SNAPSHOTS],
  ])('%s list shows every one of %i, past a page, and points to no next page', async (topic, count) => {
    const {cli, json} = cliFor(server)
    const list = await json([topic, 'list'])
    expect({length: list.data.length, has_more: list.has_more, next_cursor: list.next_cursor}).toEqual({
      length: count,
      has_more: false,
      next_cursor: null,
    })
    expect(new Set(list.data.map((item: {id?: string; name: string}) => item.id ?? item.name)).size).toBe(count)
    const text = await cli([topic, 'list'])
    expect(text.code).toBe(0)
    expect(text.stdout).not.toContain('More:')
  })
})
