import {mkdtemp, rm} from 'node:fs/promises'
import {freePort} from '../helpers/ports.js'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {verifySignature} from '../../src/webhooks/signature.js'
import {checkWith} from '../helpers/checks.js'
import {startApiServer, startServeFlags} from '../helpers/api-server.js'
import {startServer} from '../../src/server/start.js'
import {type CliProcess, cliFor, ROOT, spawnRunning, startCommand, WRITE_KEY} from '../helpers/cli.js'
import {startReceiver} from '../helpers/receiver.js'
import {relay} from '../helpers/relay.js'
import {call} from '../helpers/simulator.js'

const cleanup: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function setup(respond?: Parameters<typeof startReceiver>[0]) {
  const [server, receiver] = await Promise.all([startApiServer(), startReceiver(respond)])
  cleanup.push(
    () => server.stop(),
    () => receiver.close(),
  )
  return {server, receiver, ...cliFor(server), push: pushTo(server.url)}
}

/** Pushes a new check straight to the API (no CLI start-up), so it makes one `check.created`. */
function pushTo(url: string) {
  return async (id: string) => {
    const answer = await call(url.replace(/\/v1$/, ''), 'PUT', `/v1/checks/external/${id}`, {
      body: checkWith([['a', 1, 100]]),
    })
    expect(answer.status).toBe(201)
    return answer.body
  }
}

/** What a running `listen` prints, in this process or in one of its own. */
type Output = Pick<CliProcess, 'stdout' | 'waitForOutput'>

const readyLine = async (listen: Output) => JSON.parse((await listen.waitForOutput('\n')).split('\n')[0]!)

/**
 * Starts `listen --json` in this process and resolves with its parsed ready line: Ctrl+C is `interrupt()`.
 * Only what a real signal shows spawns the binary (spawnListen).
 */
async function startListen(env: Record<string, string>, args: string[]) {
  const listen = startCommand(['listen', '--json', ...args], {env})
  cleanup.push(() => listen.interrupt())
  return {listen, ready: await readyLine(listen)}
}

/** startListen, in a process of its own, for a test of what a signal sent to it does. */
async function spawnListen(env: Record<string, string>, args: string[]) {
  const listen = spawnRunning(['listen', '--json', ...args], env)
  cleanup.push(async () => listen.kill('SIGKILL'))
  return {listen, ready: await readyLine(listen)}
}

/** Resolves with the JSON lines of `listen --json` that contain `text`, once there are `n`. */
async function linesWith(listen: Output, text: string, n: number) {
  const lines = () =>
    listen
      .stdout()
      .split('\n')
      .filter((line) => line.includes(text))
  // each wait ends when one more record has come: `listen` writes each line whole, well under a pipe's atomic size
  while (lines().length < n) await listen.waitForOutput(`${listen.stdout()}{`)
  return lines().map((line) => JSON.parse(line))
}

const attemptLines = (listen: Output, n: number) => linesWith(listen, '"attempt"', n)

/** A receiver, a temp dir and a free port for `serve` to restart on, and the settings of a client of it. */
async function restartable() {
  const [receiver, dir, port] = await Promise.all([
    startReceiver(),
    mkdtemp(join(tmpdir(), 'tablepay-listen-')),
    freePort(),
  ])
  cleanup.push(
    () => rm(dir, {recursive: true, force: true}),
    () => receiver.close(),
  )
  const url = `http://127.0.0.1:${port}`
  return {receiver, dir, port, url, env: {TABLEPAY_URL: url, TABLEPAY_API_KEY: WRITE_KEY}}
}

/**
 * The simulator on a fixed port (and data dir, if given), so a restart comes back where it was; in this
 * process: what is tested is `listen` across the restart, not `serve` (test/commands/serve.test.ts).
 */
const serveOn = (port: number, dataDir?: string) =>
  startServer({port, host: '127.0.0.1', dataDir, seedFile: join(ROOT, 'fixtures', 'seed.json')})

describe('listen --forward-to', () => {
  it.each([
    ['as it watches', false],
    ['while its stream was away', true],
  ])(
    'ends, saying why, when deliveries dead in a row disable its endpoint %s; the endpoint is removed',
    async (_, away) => {
      const [server, receiver, port] = await Promise.all([
        startServeFlags(['--retry-schedule', '1m', '--disable-after', '1']),
        startReceiver(() => 500),
        freePort(),
      ])
      // listen reaches the server through a relay that the test cuts, as a lost network would
      const network = relay(port, new URL(server.url))
      await network.open()
      cleanup.push(
        () => server.stop(),
        () => receiver.close(),
        () => network.cut(),
      )
      const env = {TABLEPAY_URL: `http://127.0.0.1:${port}`, TABLEPAY_API_KEY: WRITE_KEY}
      const {listen} = await startListen(env, ['--forward-to', receiver.url, '-e', 'check.created'])
      await pushTo(server.url)('dead-1')
      await attemptLines(listen, 1)
      if (away) {
        await network.cut()
        await listen.waitForStderr('Stream dropped')
      }
      // its retry fails too: the delivery dies, and with it the endpoint
      const origin = server.url.replace(/\/v1$/, '')
      const advanced = await call(origin, 'POST', '/v1/sim/clock/advance', {body: {seconds: 60}})
      expect(advanced.body.attempts).toBe(1)
      if (away) await network.open()
      const {code, stdout} = await listen.done
      expect(code).toBe(1)
      const lines = stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line))
      expect(lines.at(-1).error).toMatchObject({code: 'endpoint_disabled'})
      expect((await call(origin, 'GET', '/v1/webhook-endpoints')).body.data).toEqual([])
    },
  )

  it('registers an endpoint, prints its secret and each attempt, and removes the endpoint on Ctrl+C', async () => {
    const {server, receiver, json, push} = await setup()
    const {listen, ready} = await spawnListen(server.env, ['--forward-to', receiver.url])
    receiver.verifyWith(ready.secret)
    expect(ready).toMatchObject({status: 'ready', url: receiver.url, secret: expect.stringMatching(/^whsec_/)})
    expect(ready.event_types).toHaveLength(8)
    const check = await push('l1')
    await receiver.waitFor(1)
    const [request] = receiver.received
    expect(
      verifySignature(request!.body, request!.headers['x-tablepay-signature'] as string, ready.secret),
    ).toMatchObject({valid: true})
    const [line] = await attemptLines(listen, 1)
    expect(line).toMatchObject({endpoint_id: ready.endpoint_id, event_type: 'check.created', status_code: 200})
    expect(JSON.parse(request!.body).data.id).toBe(check.id)

    expect(await listen.kill('SIGINT')).toBe(0)
    expect(listen.stderr()).toContain(`Removed endpoint ${ready.endpoint_id}`)
    expect((await json(['webhooks', 'list'])).data).toEqual([])
  })

  // SIGHUP: its terminal closed, or its SSH session dropped
  it.each(['SIGTERM', 'SIGHUP'] as const)('removes its endpoint on %s too', async (signal) => {
    const {server, receiver, json} = await setup()
    const {listen, ready} = await spawnListen(server.env, ['--forward-to', receiver.url])
    expect(await listen.kill(signal)).toBe(0)
    expect(listen.stderr()).toContain(`Removed endpoint ${ready.endpoint_id}`)
    expect((await json(['webhooks', 'list'])).data).toEqual([])
  })

  it('with --keep leaves the endpoint registered, and prints a readable line per attempt', async () => {
    const {server, receiver, json, push} = await setup()
    const listen = startCommand(['listen', '--forward-to', receiver.url, '-e', 'check.created', '--keep'], {
      env: server.env,
    })
    const banner = await listen.waitForOutput('Ctrl+C to stop.')
    receiver.verifyWith(banner.match(/Signing secret: (whsec_\w+)/)![1]!)
    expect(banner).toMatch(
      new RegExp(`Forwarding 1 event types to ${receiver.url} \\(endpoint we_\\w+\\)\\nSigning secret: whsec_\\w+`),
    )
    await push('l2')
    expect(await listen.waitForOutput(' ms  #1 ')).toMatch(/check\.created\s+we_\w+ {2}200\s+\d+ ms {2}#1 dlv_\w+/)
    expect((await listen.interrupt()).code).toBe(0)
    expect((await json(['webhooks', 'list'])).data).toHaveLength(1)
  })

  it("prints the first line of a failed attempt's answer: what the receiver said", async () => {
    const {server, receiver, push} = await setup(() => 500)
    const listen = startCommand(['listen', '--forward-to', receiver.url, '-e', 'check.created'], {env: server.env})
    cleanup.push(() => listen.interrupt())
    await listen.waitForOutput('Ctrl+C to stop')
    await push('l5')
    // the receiver answers 500 with the body "ok"
    expect(await listen.waitForOutput('"ok"')).toMatch(/check\.created\s+we_\w+ {2}500\s+\d+ ms {2}#1 dlv_\w+.*"ok"/)
  })

  it('reconnects when the server restarts on its data dir, and goes on forwarding with the same endpoint', async () => {
    const {receiver, dir, port, url, env} = await restartable()
    let serve = await serveOn(port, join(dir, 'data'))
    cleanup.push(() => serve.close())
    const push = pushTo(url)
    const {listen, ready} = await startListen(env, ['--forward-to', receiver.url])
    receiver.verifyWith(ready.secret)
    await push('r1')
    await attemptLines(listen, 1)

    await serve.close()
    await listen.waitForStderr('Stream dropped (the server closed it); reconnecting…')
    serve = await serveOn(port, join(dir, 'data'))
    await listen.waitForStderr('Reconnected.')
    const check = await push('r2')
    const [, second] = await attemptLines(listen, 2)
    expect(second).toMatchObject({endpoint_id: ready.endpoint_id, event_type: 'check.created', status_code: 200})
    expect(JSON.parse(receiver.received[1]!.body).data.id).toBe(check.id)

    expect((await listen.interrupt()).code).toBe(0)
    expect((await cliFor({env}).json(['webhooks', 'list'])).data).toEqual([])
  })

  it('registers a new endpoint when the server it reconnected to lost the old one', async () => {
    const [receiver, port] = await Promise.all([startReceiver(), freePort()])
    cleanup.push(() => receiver.close())
    let serve = await serveOn(port)
    cleanup.push(() => serve.close())
    const {listen, ready} = await startListen({TABLEPAY_URL: `http://127.0.0.1:${port}`, TABLEPAY_API_KEY: WRITE_KEY}, [
      '--forward-to',
      receiver.url,
    ])

    await serve.close()
    serve = await serveOn(port)
    await listen.waitForStderr(`Endpoint ${ready.endpoint_id} is gone from the server: registering a new one.`)
    const [, again] = await linesWith(listen, '"status":"ready"', 2)
    expect(again).toMatchObject({status: 'ready', url: receiver.url})
    expect(again.endpoint_id).not.toBe(ready.endpoint_id)
    receiver.verifyWith(again.secret)
    await pushTo(`http://127.0.0.1:${port}`)('n1')
    const [line] = await attemptLines(listen, 1)
    expect(line).toMatchObject({endpoint_id: again.endpoint_id, status_code: 200})
    expect((await listen.interrupt()).code).toBe(0)
    expect(listen.stderr()).toContain(`Removed endpoint ${again.endpoint_id}`)
  })

  it('on exit asks again when the delete answers an error: one whose answer was lost has removed the endpoint', async () => {
    const {server, receiver, json} = await setup()
    const {listen, ready} = await spawnListen(server.env, ['--forward-to', receiver.url])
    // the delete is made, and its answer lost; the one sent again finds the endpoint gone
    await json([
      'faults',
      'add',
      '--method',
      'DELETE',
      '--path',
      '/v1/webhook-endpoints/*',
      '--status',
      '503',
      '--after',
    ])
    expect(await listen.kill('SIGTERM')).toBe(0)
    expect(listen.stderr()).toContain(`Removed endpoint ${ready.endpoint_id}.`)
    const left = await json(['webhooks', 'list'])
    expect(left.data.map((endpoint: {id: string}) => endpoint.id)).not.toContain(ready.endpoint_id)
  })

  it('keeps trying while the server is down, and on Ctrl+C exits 1 naming the endpoint it could not remove', async () => {
    const {server, receiver} = await setup()
    const {listen, ready} = await spawnListen(server.env, ['--forward-to', receiver.url])
    await server.stop()
    await listen.waitForStderr('reconnecting…')
    expect(await listen.kill('SIGINT')).toBe(1)
    // the error body follows the ready line
    const failure = JSON.parse(listen.stdout().slice(listen.stdout().indexOf('\n')))
    expect(failure.error).toMatchObject({
      code: 'endpoint_not_removed',
      message: expect.stringContaining(`Could not remove endpoint ${ready.endpoint_id}: No tablepay server at`),
    })
  })
})

describe('listen: a secret that stays, recovery and chaos', () => {
  it('two runs against the same server sign with the same secret, which --print-secret prints; a receiver holding it verifies both', async () => {
    const {server, receiver, push, cli} = await setup()
    const first = await startListen(server.env, ['--forward-to', receiver.url])
    receiver.verifyWith(first.ready.secret)
    await push('same-1')
    await attemptLines(first.listen, 1)
    expect((await first.listen.interrupt()).code).toBe(0)

    const second = await startListen(server.env, ['--forward-to', receiver.url])
    expect(second.ready.secret).toBe(first.ready.secret)
    expect(second.ready.endpoint_id).not.toBe(first.ready.endpoint_id)
    await push('same-2')
    await attemptLines(second.listen, 1)
    expect(receiver.received).toHaveLength(2)
    expect((await second.listen.interrupt()).code).toBe(0)

    const printed = await cli(['listen', '--print-secret'])
    expect([printed.code, printed.stdout.trim()]).toEqual([0, first.ready.secret])
    // `receiver.close()` fails the test unless every delivery of both runs verified with it in stripe-node
  })

  it('--secret signs with the one given; --since delivers again what happened before it started', async () => {
    const {server, receiver, push} = await setup()
    const check = await push('since-1')
    const secret = 'whsec_given_on_the_command_line_0123'
    receiver.verifyWith(secret)
    const {listen, ready} = await startListen(server.env, [
      '--forward-to',
      receiver.url,
      '--secret',
      secret,
      '--since',
      '1h',
    ])
    expect(ready.secret).toBe(secret)
    await listen.waitForStderr('Delivering again 1 event since')
    const [line] = await attemptLines(listen, 1)
    expect(line).toMatchObject({event_type: 'check.created', status_code: 200})
    expect(JSON.parse(receiver.received[0]!.body).data.id).toBe(check.id)
    expect((await listen.interrupt()).code).toBe(0)
  })

  it('refuses a --secret the server would refuse as a wrong command line (exit 2), registering nothing', async () => {
    const {server, receiver} = await setup()
    const {code, stderr} = await cliFor(server).cli(['listen', '--forward-to', receiver.url, '--secret', 'whsec_short'])
    expect(code).toBe(2)
    expect(stderr).toContain('The secret (--secret or TABLEPAY_WEBHOOK_SECRET) must be whsec_ followed by 24-100')
    expect((await cliFor(server).json(['webhooks', 'list'])).data).toEqual([])
  })

  it('signs with TABLEPAY_WEBHOOK_SECRET, as verify reads it, when no --secret is given', async () => {
    const {server, receiver, push} = await setup()
    const secret = 'whsec_from_the_environment_0123456789'
    receiver.verifyWith(secret)
    const env = {...server.env, TABLEPAY_WEBHOOK_SECRET: secret}
    expect((await cliFor({env}).json(['listen', '--print-secret'])).secret).toBe(secret)
    // the flag, when given, still wins
    const flagged = await cliFor({env}).json(['listen', '--print-secret', '--secret', `${secret}_flag`])
    expect(flagged.secret).toBe(`${secret}_flag`)
    const {listen, ready} = await startListen(env, ['--forward-to', receiver.url, '-e', 'check.created'])
    expect(ready.secret).toBe(secret)
    await push('env-secret')
    const [line] = await attemptLines(listen, 1)
    expect(line).toMatchObject({event_type: 'check.created', status_code: 200})
    expect((await listen.interrupt()).code).toBe(0)
  })

  it('removes its endpoint when a step after making it fails: --since refused by a fault', async () => {
    const {receiver, cli, json} = await setup()
    await json(['faults', 'add', '--method', 'GET', '--path', '/v1/events', '--status', '503'])
    const {code, stderr} = await cli(['listen', '--forward-to', receiver.url, '--since', '2h'])
    expect([code, stderr]).toEqual([1, expect.stringContaining('simulated_fault')])
    expect((await json(['webhooks', 'list'])).data).toEqual([])
  })

  it("registers its endpoint again, with the same secret and settings, when a snapshot's restore removes it", async () => {
    const {server, receiver, push} = await setup()
    const origin = server.url.replace(/\/v1$/, '')
    // saved before listen made its endpoint: restoring it removes the endpoint
    expect((await call(origin, 'POST', '/v1/sim/snapshots', {body: {name: 'before'}})).status).toBe(201)
    const {listen, ready} = await startListen(server.env, [
      '--forward-to',
      receiver.url,
      '-e',
      'check.created',
      '--chaos',
      'duplicate=1,seed=3',
    ])
    receiver.verifyWith(ready.secret)
    expect((await call(origin, 'POST', '/v1/sim/snapshots/before/restore')).status).toBe(200)
    await listen.waitForStderr(
      `The account was restored from a snapshot without endpoint ${ready.endpoint_id}: registering it again.`,
    )
    const [, again] = await linesWith(listen, '"status":"ready"', 2)
    expect(again).toEqual({...ready, endpoint_id: expect.not.stringMatching(ready.endpoint_id)})
    const chaos = await call(origin, 'GET', `/v1/sim/webhook-endpoints/${again.endpoint_id}/chaos`)
    expect(chaos.body).toMatchObject({duplicate: 1, seed: 3})
    await push('after-restore')
    const [line] = await attemptLines(listen, 1)
    expect(line).toMatchObject({endpoint_id: again.endpoint_id, event_type: 'check.created', status_code: 200})
    expect((await listen.interrupt()).code).toBe(0)
    expect(listen.stderr()).toContain(`Removed endpoint ${again.endpoint_id}.`)
  })

  it('ends with endpoint_deleted (exit 1) when its endpoint is deleted elsewhere, without deleting it again', async () => {
    const {server, receiver, push} = await setup()
    const origin = server.url.replace(/\/v1$/, '')
    const {listen, ready} = await startListen(server.env, ['--forward-to', receiver.url, '-e', 'check.created'])
    // another endpoint of the account deleted: listen goes on
    const other = await call(origin, 'POST', '/v1/webhook-endpoints', {body: {url: receiver.url}})
    expect((await call(origin, 'DELETE', `/v1/webhook-endpoints/${other.body.id}`)).status).toBe(200)
    await push('before-delete')
    await attemptLines(listen, 1)

    expect((await call(origin, 'DELETE', `/v1/webhook-endpoints/${ready.endpoint_id}`)).status).toBe(200)
    const {code, stdout, stderr} = await listen.done
    expect(code).toBe(1)
    const {error} = JSON.parse(stdout.trimEnd().split('\n').at(-1)!)
    expect(error).toMatchObject({
      code: 'endpoint_deleted',
      message: `Endpoint ${ready.endpoint_id} was deleted while this ran (not by listen): nothing more comes to it.`,
      suggestions: ['Run tablepay listen again: it registers a new endpoint.'],
    })
    // it was gone already: no delete on the way out, and nothing said about one
    expect(stderr).not.toContain('Removed endpoint')
    expect(stderr).not.toContain('Could not remove')
  })

  it("ends with the server's refusal (exit 1) when a restore leaves no room to register its endpoint again", async () => {
    const receiver = await startReceiver()
    const server = await startServer({
      port: 0,
      host: '127.0.0.1',
      seedFile: join(ROOT, 'fixtures', 'seed.json'),
      limits: {webhook_endpoints: 1},
    })
    cleanup.push(
      () => server.close(),
      () => receiver.close(),
    )
    // a snapshot holding the one endpoint the account may have, which listen's then cannot join
    const made = await call(server.url, 'POST', '/v1/webhook-endpoints', {body: {url: receiver.url}})
    expect((await call(server.url, 'POST', '/v1/sim/snapshots', {body: {name: 'full'}})).status).toBe(201)
    expect((await call(server.url, 'DELETE', `/v1/webhook-endpoints/${made.body.id}`)).status).toBe(200)
    const {listen, ready} = await startListen({TABLEPAY_URL: `${server.url}/v1`, TABLEPAY_API_KEY: WRITE_KEY}, [
      '--forward-to',
      receiver.url,
    ])
    expect((await call(server.url, 'POST', '/v1/sim/snapshots/full/restore')).status).toBe(200)
    const {code, stdout, stderr} = await listen.done
    expect(code).toBe(1)
    expect(stderr).toContain(`without endpoint ${ready.endpoint_id}: registering it again.`)
    expect(JSON.parse(stdout.trimEnd().split('\n').at(-1)!).error).toMatchObject({code: 'limit_reached'})
    const left = await call(server.url, 'GET', '/v1/webhook-endpoints')
    expect(left.body.data.map((endpoint: {id: string}) => endpoint.id)).toEqual([made.body.id])
  })

  it('with --chaos, survives the server restarting under it, keeps forwarding duplicates, and leaves no endpoint after Ctrl+C', async () => {
    const {receiver, dir, port, url, env} = await restartable()
    let serve = await serveOn(port, join(dir, 'data'))
    cleanup.push(() => serve.close())
    const {listen, ready} = await startListen(env, ['--forward-to', receiver.url, '--chaos', 'duplicate=1,seed=3'])
    receiver.verifyWith(ready.secret)
    // over HTTP: an in-process command waits for listen to end
    const chaos = await call(url, 'GET', `/v1/sim/webhook-endpoints/${ready.endpoint_id}/chaos`)
    expect(chaos.body).toMatchObject({duplicate: 1, seed: 3})

    await serve.close()
    await listen.waitForStderr('reconnecting…')
    serve = await serveOn(port, join(dir, 'data'))
    await listen.waitForStderr('Reconnected.')
    await pushTo(url)('chaos-1')
    const [first, again] = await attemptLines(listen, 2)
    expect(first).toMatchObject({endpoint_id: ready.endpoint_id, status_code: 200})
    expect(again).toMatchObject({delivery_id: first.delivery_id, duplicate: true})
    await receiver.waitFor(2)
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body)

    expect((await listen.interrupt()).code).toBe(0)
    expect((await cliFor({env}).json(['webhooks', 'list'])).data).toEqual([])
  })
})
