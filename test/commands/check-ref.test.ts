import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {runCommand, startCommand} from '../helpers/cli.js'

// Every command that takes a check takes its chk_ id or the POS id it was pushed under (README, "Flags").

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer()
})
afterAll(() => server.stop())

const cli = (args: string[]) => runCommand(args, {env: server.env})
const json = async (args: string[]) => {
  const {code, stdout, stderr} = await cli([...args, '--json'])
  expect(code, stderr).toBe(0)
  return JSON.parse(stdout)
}

/** Pushes fixtures/checks/open.json as POS check `externalId`: each test names checks of its own. */
const push = async (externalId: string): Promise<{id: string}> =>
  json(['checks', 'push', externalId, '-f', 'fixtures/checks/open.json'])

/** What every command says of a POS id no check of the account was pushed under: what it is, and where to look. */
function expectUnknownPosId({code, stderr}: {code: number | null; stderr: string}, externalId: string) {
  expect(code).toBe(1)
  expect(stderr).toContain(`No check with external id ${externalId} in this account.`)
  expect(stderr).toContain('Code: not_found')
  expect(stderr).toContain('tablepay checks list')
  expect(stderr).toContain(`tablepay logs list --path /v1/checks/external/${externalId}`)
  // and, for one not pushed yet, how to follow its pushes
  expect(stderr.replace(/\s*\n[\s›]*/g, ' ')).toContain(`tablepay logs tail --path /v1/checks/external/${externalId}`)
}

// each command with the check given as CHECK, and what it answers about it
const commands: [name: string, args: (check: string) => string[]][] = [
  ['checks get', (check) => ['checks', 'get', check]],
  // line-1002 has 2 units: one claim by each name
  ['trigger claim', (check) => ['trigger', 'claim', '--check', check, '--item', 'line-1002']],
  ['trigger payment', (check) => ['trigger', 'payment', '-c', check, '--amount', '100']],
  ['trigger feedback', (check) => ['trigger', 'feedback', '-c', check, '--rating', '4']],
]

describe('a check named by its chk_ id or its POS id', () => {
  it.each(commands)('%s acts on the same check either way', async (name, args) => {
    const externalId = `ref-${name.replace(' ', '-')}`
    const check = await push(externalId)
    for (const ref of [externalId, check.id]) {
      const answer = await json(args(ref))
      expect(answer.object === 'check' ? answer.id : answer.check_id).toBe(check.id)
    }
  })

  it.each(commands)('%s refuses a POS id no check was pushed under, saying where to look', async (_, args) => {
    expectUnknownPosId(await cli(args('ref-never-pushed')), 'ref-never-pushed')
  })

  it.each(commands)('%s finds a check by a POS id that looks like a check id (chk_…)', async (name, args) => {
    const check = await push(`chk_pos-${name.replace(' ', '-')}`)
    const answer = await json(args(`chk_pos-${name.replace(' ', '-')}`))
    expect(answer.object === 'check' ? answer.id : answer.check_id).toBe(check.id)
  })

  it.each(commands)('%s refuses a CHECK no path can name as a wrong command line (exit 2)', async (_, args) => {
    const {code, stderr} = await cli(args('a?b'))
    expect(code).toBe(2)
    expect(stderr).toContain('"a?b" is not its id (chk_…) or the POS id it was pushed under')
  })

  it('checks push refuses a POS id no path can name as a wrong command line (exit 2), not as the server would', async () => {
    for (const id of ['a?b', 'x'.repeat(65)]) {
      const {code, stderr} = await cli(['checks', 'push', id, '-f', 'fixtures/checks/open.json', '-l', 'loc_main'])
      const said = stderr.replaceAll(/\s*\n ›\s*/g, ' ')
      expect([code, said], id).toEqual([2, expect.stringContaining(`"${id}" is not a POS id: a POS id is 1-64`)])
    }
  })

  it('logs list --check takes the POS id: the requests about that check, not "No requests."', async () => {
    const check = await push('ref-logs-1')
    await push('ref-logs-other')
    await json(['trigger', 'feedback', '-c', check.id, '--rating', '5'])
    const byPosId = await json(['logs', 'list', '--check', 'ref-logs-1', '--method', 'POST'])
    const byId = await json(['logs', 'list', '-c', check.id, '--method', 'POST'])
    expect(byPosId.data.map((e: {path: string}) => e.path)).toEqual([`/v1/sim/checks/${check.id}/feedback`])
    expect(byPosId.data).toEqual(byId.data)
    const pushes = await json(['logs', 'list', '--check', 'ref-logs-1', '--method', 'PUT'])
    expect(pushes.data.map((e: {check_id: string}) => e.check_id)).toEqual([check.id])
    // finding the check by its POS id is the CLI's own read: the log shows the user's traffic only
    const reads = await json(['logs', 'list', '--path', '/v1/checks/external/ref-logs-1', '--method', 'GET'])
    expect(reads.data).toEqual([])
  })

  it('logs list --check takes the chk_ id of a check a restore took away: its requests are still in the log', async () => {
    await json(['snapshots', 'save', 'ref-before'])
    const check = await push('ref-logs-gone')
    await json(['trigger', 'feedback', '-c', check.id, '--rating', '3'])
    await json(['snapshots', 'restore', 'ref-before'])
    const logged = await json(['logs', 'list', '--check', check.id, '--method', 'POST'])
    expect(logged.data.map((e: {path: string}) => e.path)).toEqual([`/v1/sim/checks/${check.id}/feedback`])
  })

  it('logs list --check with a POS id no check was pushed under is an error, not an empty list', async () => {
    expectUnknownPosId(await cli(['logs', 'list', '--check', 'ref-logs-never']), 'ref-logs-never')
    const {code, stdout} = await cli(['logs', 'list', '--check', 'ref-logs-never', '--json'])
    expect(code).toBe(1)
    expect(JSON.parse(stdout).error).toMatchObject({code: 'not_found'})
  })

  it('logs tail --check takes the POS id and prints only the requests about that check', async () => {
    const check = await push('ref-tail-1')
    const other = await push('ref-tail-other')
    const tail = startCommand(['logs', 'tail', '--check', 'ref-tail-1', '--json'], {env: server.env})
    await tail.waitForStderr('Waiting for requests')
    // through the API, as in-process commands wait for the tail to end
    const feedback = (id: string) =>
      fetch(`${server.url}/sim/checks/${id}/feedback`, {
        method: 'POST',
        headers: {authorization: `Bearer ${server.env.TABLEPAY_API_KEY}`, 'content-type': 'application/json'},
        body: JSON.stringify({rating: 3}),
      })
    expect((await feedback(other.id)).status).toBe(201)
    expect((await feedback(check.id)).status).toBe(201)
    await tail.waitForOutput('\n')
    const {code, stdout} = await tail.interrupt()
    expect(code).toBe(0)
    const entries = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(entries.map((e) => [e.path, e.check_id])).toEqual([[`/v1/sim/checks/${check.id}/feedback`, check.id]])
  })

  it('logs tail --check with a POS id no check was pushed under exits at once, saying where to look', async () => {
    expectUnknownPosId(await cli(['logs', 'tail', '--check', 'ref-tail-never']), 'ref-tail-never')
  })
})
