import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../../helpers/api-server.js'
import {runCommand} from '../../helpers/cli.js'

let server: ApiServer
const ids: Record<string, string> = {}
beforeAll(async () => {
  server = await startApiServer()
  for (const [externalId, file] of [
    ['t12', 'open'],
    ['t7', 'closed'],
  ] as const) {
    const {stdout} = await runCommand(['checks', 'push', externalId, '-f', `fixtures/checks/${file}.json`, '--json'], {
      env: server.env,
    })
    ids[externalId] = JSON.parse(stdout).id
  }
})
afterAll(() => server.stop())

const list = (args: string[]) => runCommand(['checks', 'list', ...args], {env: server.env})

describe('checks list', () => {
  it('prints a table of checks, newest first', async () => {
    const {code, stdout} = await list([])
    expect(code).toBe(0)
    const lines = stdout.trimEnd().split('\n')
    expect(lines[0]!.split(/\s{2,}/)).toEqual([
      'ID',
      'EXTERNAL ID',
      'TABLE',
      'STATUS',
      'ITEMS',
      'TOTAL',
      'DUE',
      'UPDATED',
    ])
    // times as the other lists show them: local, to the second
    expect(lines[1]).toMatch(
      new RegExp(`^${ids.t7}\\s+t7\\s+12\\s+closed\\s+4\\s+98\\.45\\s+.*\\s\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$`),
    )
    expect(lines[2]).toMatch(new RegExp(`^${ids.t12}\\s+t12\\s+12\\s+open\\s+3\\s+78\\.65`))
  })

  it('pages with --limit and --starting-after', async () => {
    const first = JSON.parse((await list(['--limit', '1', '--json'])).stdout)
    expect(first).toMatchObject({object: 'list', has_more: true, next_cursor: ids.t7})
    expect(first.data.map((c: {id: string}) => c.id)).toEqual([ids.t7])

    const human = await list(['--limit', '1'])
    expect(human.stdout).toContain(`More: tablepay checks list --limit 1 --starting-after ${ids.t7}`)

    const second = JSON.parse((await list(['--limit', '1', '--starting-after', first.next_cursor, '--json'])).stdout)
    expect(second).toMatchObject({has_more: false, next_cursor: null})
    expect(second.data.map((c: {id: string}) => c.id)).toEqual([ids.t12])
  })

  it('filters with --status', async () => {
    const {stdout} = await list(['--status', 'closed', '--json'])
    expect(JSON.parse(stdout).data.map((c: {id: string}) => c.id)).toEqual([ids.t7])
  })

  it('refuses an unknown status before calling the server', async () => {
    const {code, stderr} = await list(['--status', 'paid'])
    expect(code).not.toBe(0)
    expect(stderr).toContain('Expected --status=paid to be one of: open, closed, voided')
  })
})

describe('checks list, paged with filters', () => {
  it('ends a page with the command line of the next: the same filters, the cursor in place of any given', async () => {
    const own = await startApiServer()
    try {
      const push = async (externalId: string, file: string) => {
        const args = ['checks', 'push', externalId, '-f', `fixtures/checks/${file}.json`, '--json']
        return JSON.parse((await runCommand(args, {env: own.env})).stdout).id as string
      }
      const t1 = await push('t1', 'open')
      const t2 = await push('t2', 'closed')
      const t3 = await push('t3', 'open')
      const page = (args: string[]) => runCommand(['checks', 'list', ...args], {env: own.env})
      const first = await page(['--status', 'open', '-n', '1'])
      expect(first.stdout).toContain(`More: tablepay checks list --status open -n 1 --starting-after ${t3}`)
      // run as written, it shows the next open check, and ends there
      const next = await page(['--status', 'open', '-n', '1', '--starting-after', t3])
      expect(next.stdout).toContain(t1)
      expect(next.stdout).not.toContain('More:')
      const unfiltered = await page(['-n', '1', '--starting-after=' + t3])
      expect(unfiltered.stdout).toContain(`More: tablepay checks list -n 1 --starting-after ${t2}`)
      expect(unfiltered.stdout).not.toContain(`--starting-after=${t3}`)
    } finally {
      await own.stop()
    }
  })
})
