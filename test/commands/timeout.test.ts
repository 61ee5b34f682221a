import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import ClockAdvance from '../../src/commands/clock/advance.js'
import ClockReset from '../../src/commands/clock/reset.js'
import LocationsList from '../../src/commands/locations/list.js'
import ScenarioRun from '../../src/commands/scenario/run.js'
import WebhooksPing from '../../src/commands/webhooks/ping.js'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {runCommand} from '../helpers/cli.js'

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer()
})
afterAll(() => server.stop())

const cli = (args: string[]) => runCommand(args, {env: server.env})

/** A fault that holds the next GET of the locations `ms`: a server that is slow to answer, not gone. */
async function holdNextLocations(ms: number) {
  const response = await fetch(`${server.url}/sim/faults`, {
    method: 'POST',
    headers: {authorization: `Bearer ${server.env.TABLEPAY_API_KEY}`, 'content-type': 'application/json'},
    body: JSON.stringify({match: {method: 'GET', path: '/v1/locations'}, delay_ms: ms}),
  })
  expect(response.status).toBe(201)
}

describe('--timeout', () => {
  it('fails a command whose answer takes longer, saying what to do, and exits 1', async () => {
    await holdNextLocations(2000)
    const {code, stderr} = await cli(['locations', 'list', '--timeout', '300ms'])
    expect(code).toBe(1)
    // oclif wraps the message: read it as one line
    const said = stderr.replace(/\s*\n[\s›]*/g, ' ')
    expect(said).toContain(`did not answer within 300 ms`)
    expect(said).toContain('Give it longer (--timeout')
  })

  it('counts whole milliseconds: 1.001s, 1000.9999999999999 ms in floating point, is 1001 ms', async () => {
    await holdNextLocations(3000)
    const {code, stderr} = await cli(['locations', 'list', '--timeout', '1.001s'])
    expect(code).toBe(1)
    expect(stderr.replace(/\s*\n[\s›]*/g, ' ')).toContain('did not answer within 1001 ms')
  })

  it('reports server_timeout in the error body with --json', async () => {
    await holdNextLocations(2000)
    const {code, stdout} = await cli(['locations', 'list', '--timeout', '0.3', '--json'])
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toMatchObject({error: {code: 'server_timeout'}})
  })

  it('waits for an answer within it, and as long as it takes with 0', async () => {
    await holdNextLocations(500)
    const within = await cli(['locations', 'list', '--timeout', '1m', '--json'])
    expect(within.code).toBe(0)
    await holdNextLocations(500)
    const unbounded = await cli(['locations', 'list', '--timeout', '0', '--json'])
    expect(unbounded.code).toBe(0)
    expect(JSON.parse(unbounded.stdout)).toMatchObject({object: 'list'})
  })

  it('is 30 s unless given, and none for the commands whose answers wait for receivers, as their help says', async () => {
    // a reset waits for an advance under way
    const defaults = [LocationsList, ClockAdvance, ClockReset, WebhooksPing, ScenarioRun].map(
      (command) => command.baseFlags.timeout.default,
    )
    expect(defaults).toEqual([30, 0, 0, 0, 0])
    const help = async (command: string[]) =>
      (await runCommand([...command, '--help'])).stdout
        .replace(/\s+/g, ' ')
        .match(/--timeout=DURATION (\[default: \w+\])/)?.[1]
    expect(await help(['locations', 'list'])).toBe('[default: 30s]')
    expect(await help(['scenario', 'run'])).toBe('[default: 0]')
  })

  it("serve's and exec's --receiver-timeout show their default as a duration is written", async () => {
    for (const command of ['serve', 'exec']) {
      const {stdout} = await runCommand([command, '--help'])
      expect(stdout.replace(/\s+/g, ' ')).toContain('500ms (default 10s).')
    }
  })

  it('refuses a value that is not a duration as a wrong command line (exit 2)', async () => {
    const {code, stderr} = await cli(['locations', 'list', '--timeout', 'soon'])
    expect(code).toBe(2)
    expect(stderr).toContain('"soon" is not a duration')
  })
})
