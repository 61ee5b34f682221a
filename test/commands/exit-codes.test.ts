import {readFileSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {signPayload} from '../../src/index.js'
import {type ApiServer, startApiServer} from '../helpers/api-server.js'
import {cliFor, ROOT, runCommand, spawnRunning} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {startReceiver} from '../helpers/receiver.js'

const manifestOf = (dir: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dir, 'oclif.manifest.json'), 'utf8')).commands

/** Every command a user can run: the CLI's own, and its plugins'. */
const COMMANDS = [
  ...Object.keys(manifestOf(ROOT)),
  ...Object.keys(manifestOf(join(ROOT, 'node_modules', '@oclif', 'plugin-autocomplete'))),
].map((id) => id.replaceAll(':', ' '))

/** The codes the EXIT CODES section of a command's --help lists, in its order. */
async function exitCodesShown(id: string): Promise<string[]> {
  const {code, stdout} = await runCommand([...id.split(' '), '--help'])
  expect(code).toBe(0)
  const section = /^EXIT CODES\n((?: {2}.*\n?)+)/m.exec(stdout)?.[1] ?? ''
  // a code starts its line; a meaning too long for one goes on under it, further in
  return [...section.matchAll(/^ {2}(\d\S*) /gm)].map((m) => m[1]!)
}

describe('EXIT CODES in every help', () => {
  it('every command, plugins too, ends its --help with its exit codes: 0, 1 and 2 at least', async () => {
    expect(COMMANDS.length).toBeGreaterThan(40)
    const missing: string[] = []
    for (const id of COMMANDS) {
      const codes = await exitCodesShown(id)
      if (!['0', '1', '2'].every((code) => codes.includes(code))) missing.push(`${id}: ${codes.join(', ')}`)
    }
    expect(missing).toEqual([])
  })

  it("a command's own codes come with the ones all share: serve and the tails end at once on a second signal", async () => {
    expect(await exitCodesShown('serve')).toEqual(['0', '1', '2', '129', '130', '143'])
    expect(await exitCodesShown('deliveries tail')).toEqual(['0', '1', '2', '129', '130', '143'])
    expect(await exitCodesShown('locations list')).toEqual(['0', '1', '2'])
  })
})

describe('the codes help shows are the ones the command exits with', () => {
  let dir: string
  let server: ApiServer
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let refusing: Awaited<ReturnType<typeof startReceiver>>
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tablepay-exit-codes-'))
    ;[server, receiver, refusing] = await Promise.all([startApiServer(), startReceiver(), startReceiver(() => 500)])
  })
  afterAll(() =>
    Promise.all([rm(dir, {recursive: true, force: true}), server.stop(), receiver.close(), refusing.close()]),
  )

  /** Runs each command line, and expects the codes it exits with to be what --help lists for `id`. */
  async function expectExits(id: string, runs: Record<string, () => Promise<{code: number | null}>>) {
    const exited: Record<string, number | null> = {}
    for (const [code, run] of Object.entries(runs)) exited[code] = (await run()).code
    expect(exited).toEqual(Object.fromEntries(Object.keys(runs).map((code) => [code, Number(code)])))
    expect(await exitCodesShown(id)).toEqual(Object.keys(runs))
  }

  it('verify: 0 valid, 1 not valid, 2 without a secret', async () => {
    const secret = 'whsec_test_exit_codes_3d1f'
    const payload = 'fixtures/checks/open.json'
    const header = signPayload(readFileSync(join(ROOT, payload)), secret)
    await expectExits('verify', {
      0: () => runCommand(['verify', '-s', secret, '-H', header, '-p', payload]),
      1: () => runCommand(['verify', '-s', 'whsec_another', '-H', header, '-p', payload]),
      2: () => runCommand(['verify', '-H', header, '-p', payload]),
    })
  })

  it('checks lint: 0 valid, 1 a problem, 2 no FILE', async () => {
    const bad = join(dir, 'bad.json')
    await writeFile(bad, JSON.stringify({table: 12}))
    await expectExits('checks lint', {
      0: () => runCommand(['checks', 'lint', 'fixtures/checks/open.json']),
      1: () => runCommand(['checks', 'lint', bad]),
      2: () => runCommand(['checks', 'lint']),
    })
  })

  it('webhooks ping: 0 the receiver took it, 1 it did not, 2 no endpoint id, 128 + a signal that stopped its wait', async () => {
    const {cli, json} = cliFor(server)
    const silent = await startReceiver(() => 'hang')
    const [taking, refused, held] = await Promise.all([
      json(['webhooks', 'create', '--forward-to', receiver.url]),
      json(['webhooks', 'create', '--forward-to', refusing.url]),
      json(['webhooks', 'create', '--forward-to', silent.url]),
    ])
    let pings = 0
    /** Stops a ping with `signal` once its receiver has it: the ping goes on in the server, as it says. */
    const stopped = (signal: NodeJS.Signals) => async () => {
      const ping = spawnRunning(['webhooks', 'ping', held.id], server.env)
      await silent.waitFor(++pings)
      const code = await ping.kill(signal)
      expect(ping.stderr()).toContain('Stopped waiting. The ping goes on in the server all the same.')
      return {code}
    }
    try {
      await expectExits('webhooks ping', {
        0: () => cli(['webhooks', 'ping', taking.id]),
        1: () => cli(['webhooks', 'ping', refused.id]),
        2: () => cli(['webhooks', 'ping']),
        129: stopped('SIGHUP'),
        130: stopped('SIGINT'),
        143: stopped('SIGTERM'),
      })
    } finally {
      await silent.close()
    }
  })

  it('checks push: 0 pushed, 1 a body the server refuses, 2 a body that is no JSON object, as one it cannot read', async () => {
    const {cli} = cliFor(server)
    const [array, empty] = [join(dir, 'array.json'), join(dir, 'empty-object.json')]
    await writeFile(array, '[]')
    await writeFile(empty, '{}')
    await expectExits('checks push', {
      0: () => cli(['checks', 'push', 'exit-codes', '-f', 'fixtures/checks/open.json']),
      1: () => cli(['checks', 'push', 'exit-codes', '-f', empty]),
      2: () => cli(['checks', 'push', 'exit-codes', '-f', array]),
    })
    expect((await cli(['checks', 'push', 'exit-codes', '-f', join(dir, 'nothere.json')])).code).toBe(2)
  })

  it('locations list, as every command that calls the server: 0 done, 1 no server answers, 2 a bad flag', async () => {
    const {cli} = cliFor(server)
    const nowhere = {TABLEPAY_URL: `http://127.0.0.1:${await freePort()}`, TABLEPAY_API_KEY: 'tp_test_x'}
    await expectExits('locations list', {
      0: () => cli(['locations', 'list']),
      1: () => runCommand(['locations', 'list'], {env: nowhere}),
      2: () => cli(['locations', 'list', '--bogus']),
    })
  })
})
