import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Delivery} from '../../src/client/client.js'
import {type ApiServer, startApiServer, startServeFlags} from '../helpers/api-server.js'
import {checkWith} from '../helpers/checks.js'
import {join} from 'node:path'
import {startServer} from '../../src/server/start.js'
import {cliFor, ROOT, startCommand, WRITE_KEY} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {startReceiver} from '../helpers/receiver.js'
import {call} from '../helpers/simulator.js'

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer()
})
afterAll(() => server.stop())

const cli = (args: string[]) => cliFor(server).cli(args)
const json = (args: string[]) => cliFor(server).json(args)
const getDelivery = async (id: string): Promise<Delivery> => {
  const authorization = `Bearer ${server.env.TABLEPAY_API_KEY}`
  // the test's own look, which the request log leaves out as it does a tail's
  const res = await fetch(`${server.url}/deliveries/${id}`, {headers: {authorization, 'x-tablepay-client': 'cli-tail'}})
  return res.json() as Promise<Delivery>
}

/**
 * A receiver of its own with an endpoint for check.created, and the delivery
 * of one push, once its first attempt is recorded.
 */
async function deliveredOnce(externalId: string, answer: number) {
  const receiver = await startReceiver(() => answer)
  const endpoint = await json(['webhooks', 'create', '--forward-to', receiver.url, '-e', 'check.created'])
  receiver.verifyWith(endpoint.secret)
  await json(['checks', 'push', externalId, '-f', 'fixtures/checks/open.json'])
  const {data} = await json(['deliveries', 'list', '--endpoint', endpoint.id])
  const id = (data as Delivery[])[0]!.id
  await expect.poll(async () => (await getDelivery(id)).attempts.length).toBe(1)
  return {receiver, endpoint, id}
}

describe('deliveries retry', () => {
  it('waits for the new attempt and prints the delivery with its result', async () => {
    const {receiver, id} = await deliveredOnce('retry-1', 200)
    const {code, stdout} = await cli(['deliveries', 'retry', id])
    expect(code).toBe(0)
    expect(stdout).toMatch(new RegExp(`^${id}  succeeded`))
    // the table lists attempt 2 with the receiver's answer
    expect(stdout).toMatch(/\n2\s+.*\s200\s/)
    expect(stdout).not.toContain('queued')
    expect(receiver.received.map((r) => r.headers['x-tablepay-delivery-attempt'])).toEqual(['1', '2'])
    // the request log holds the retry, not the reads that drew the wait (the delivery, the clock)
    const logged = await json(['logs', 'list', '--path', `/v1/deliveries/${id}`])
    expect((logged.data as {method: string; path: string}[]).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /v1/deliveries/${id}/retry`,
    ])
    await receiver.close()
  })

  it('waits for its own attempt, not one that was already out when it was asked', async () => {
    // the first attempt is held by the receiver until the retry is queued, then refused; the retry's is accepted
    let release!: (status: number) => void
    const held = new Promise<number>((resolve) => (release = resolve))
    const receiver = await startReceiver((request) =>
      request.headers['x-tablepay-delivery-attempt'] === '1' ? held : 200,
    )
    const endpoint = await json(['webhooks', 'create', '--forward-to', receiver.url, '-e', 'check.created'])
    receiver.verifyWith(endpoint.secret)
    await json(['checks', 'push', 'retry-out', '-f', 'fixtures/checks/open.json'])
    await receiver.waitFor(1)
    const id = ((await json(['deliveries', 'list', '--endpoint', endpoint.id])).data as Delivery[])[0]!.id
    const retry = cli(['deliveries', 'retry', id])
    // the retry is queued once the server has answered it: the request log has it then (read over
    // HTTP: a second command in this process would wait for the first)
    const retried = async () => {
      const path = `/v1/deliveries/${id}/retry`
      const res = await fetch(`${server.url}/sim/requests?path=${encodeURIComponent(path)}`, {
        headers: {authorization: `Bearer ${server.env.TABLEPAY_API_KEY}`},
      })
      return ((await res.json()) as {data: {status: number}[]}).data.filter((r) => r.status === 200).length
    }
    await expect.poll(retried).toBe(1)
    release(500)

    const {code, stdout} = await retry
    expect(code).toBe(0)
    expect(stdout).toMatch(new RegExp(`^${id}  succeeded`))
    expect(stdout).toMatch(/\n1\s+.*\s500\s/)
    expect(stdout).toMatch(/\n2\s+.*\s200\s/)
    await receiver.close()
  })

  it('an attempt the receiver refuses exits 1 and says what to do next', async () => {
    const {receiver, id} = await deliveredOnce('retry-4', 500)
    const {code, stdout} = await cli(['deliveries', 'retry', id])
    expect(code).toBe(1)
    expect(stdout).toMatch(new RegExp(`^${id}  pending`))
    expect(stdout).toContain(
      `Attempt #2 failed (500): fix the receiver, then retry again: \`tablepay deliveries retry ${id}\`.`,
    )
    await receiver.close()
  })

  it('--json prints the delivery after the attempt, with "attempted": true (exit 1 when it failed)', async () => {
    const {receiver, id} = await deliveredOnce('retry-2', 500)
    const {code, stdout} = await cli(['deliveries', 'retry', id, '--json'])
    expect(code).toBe(1)
    const delivery = JSON.parse(stdout)
    expect(delivery).toMatchObject({id, status: 'pending', attempted: true})
    expect(delivery.attempts.map((a: {attempt: number; status_code: number}) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
    ])
    await receiver.close()
  })

  it('--no-wait says the attempt is queued and how to watch it', async () => {
    const {receiver, endpoint, id} = await deliveredOnce('retry-3', 200)
    const {code, stdout} = await cli(['deliveries', 'retry', id, '--no-wait'])
    expect(code).toBe(0)
    expect(stdout).toContain(
      `Attempt queued; \`tablepay deliveries tail --endpoint ${endpoint.id}\` shows it when it ends`,
    )
    const queued = await cli(['deliveries', 'retry', id, '--no-wait', '--json'])
    expect(JSON.parse(queued.stdout)).toMatchObject({id, attempted: false})
    await receiver.waitFor(3)
    await receiver.close()
  })
})

describe('a superseded delivery', () => {
  it('deliveries get and list show it with the delivery that succeeded in its place', async () => {
    let answer = 500
    const receiver = await startReceiver(() => answer)
    const endpoint = await json(['webhooks', 'create', '--forward-to', receiver.url, '-e', 'check.created'])
    receiver.verifyWith(endpoint.secret)
    await json(['checks', 'push', 'superseded-1', '-f', 'fixtures/checks/open.json'])
    const original = ((await json(['deliveries', 'list', '--endpoint', endpoint.id])).data as Delivery[])[0]!
    await expect.poll(async () => (await getDelivery(original.id)).attempts.length).toBe(1)
    answer = 200
    const resent = await json(['events', 'resend', original.event_id, '--endpoint', endpoint.id])
    expect(resent.status).toBe('succeeded')

    const shown = await cli(['deliveries', 'get', original.id])
    expect(shown.stdout).toMatch(new RegExp(`^${original.id}  superseded by ${resent.id}  check\\.created`))
    expect(shown.stdout).not.toContain('Next attempt')
    expect(await json(['deliveries', 'get', original.id])).toMatchObject({
      status: 'superseded',
      superseded_by: resent.id,
    })
    const listed = await cli(['deliveries', 'list', '--endpoint', endpoint.id, '--status', 'superseded'])
    expect(listed.stdout).toMatch(new RegExp(`${original.id} .* superseded by ${resent.id} `))
    await json(['webhooks', 'delete', endpoint.id])
    await receiver.close()
  })
})

describe('deliveries tail --endpoint', () => {
  it('exits 1 with not_found for an endpoint that does not exist, instead of waiting', async () => {
    const {code, stderr} = await cli(['deliveries', 'tail', '--endpoint', 'we_nope'])
    expect(code).toBe(1)
    expect(stderr).toContain('No webhook endpoint we_nope in this account.')
    expect(stderr).toContain('Code: not_found')
    expect(stderr).toContain('tablepay webhooks list')
    const asJson = await cli(['deliveries', 'tail', '--endpoint', 'we_nope', '--json'])
    expect(asJson.code).toBe(1)
    expect(JSON.parse(asJson.stdout).error).toMatchObject({code: 'not_found'})
  })
})

describe('deliveries tail --endpoint and a deletion', () => {
  it('exits 1 with not_found once its endpoint is deleted elsewhere, past the deletion of another', async () => {
    const env = server.env
    const endpoint = await json(['webhooks', 'create', '--forward-to', 'http://127.0.0.1:9/tailed'])
    const other = await json(['webhooks', 'create', '--forward-to', 'http://127.0.0.1:9/other'])
    const tail = startCommand(['deliveries', 'tail', '--endpoint', endpoint.id], {env})
    try {
      await tail.waitForStderr('Waiting for delivery attempts')
      // from elsewhere: another terminal, a teammate
      const remove = (id: string) => call(server.url.replace(/\/v1$/, ''), 'DELETE', `/v1/webhook-endpoints/${id}`)
      expect((await remove(other.id)).status).toBe(200)
      expect((await remove(endpoint.id)).status).toBe(200)
      const {code, stderr} = await tail.done
      expect(code).toBe(1)
      expect(stderr).toContain(`Endpoint ${endpoint.id} was deleted while this ran: no attempt to it can come.`)
      expect(stderr).not.toContain(other.id)
      expect(stderr).toContain('Code: not_found')
      expect(stderr).toContain('`tablepay webhooks list` shows the endpoints left')
    } finally {
      await tail.interrupt()
    }
  })
})

describe('deliveries tail across a restart', () => {
  it('with --endpoint, exits 1 once it reconnects to a server that came back without the endpoint', async () => {
    const port = await freePort()
    // in this process, on a fixed port, with the seed's keys: what is tested is the tail across a restart
    const serveOn = () => startServer({port, host: '127.0.0.1', seedFile: join(ROOT, 'fixtures', 'seed.json')})
    let serve = await serveOn()
    try {
      const env = {TABLEPAY_URL: `http://127.0.0.1:${port}`, TABLEPAY_API_KEY: WRITE_KEY}
      const endpoint = await cliFor({env}).json(['webhooks', 'create', '--forward-to', 'http://127.0.0.1:9/'])
      const tail = startCommand(['deliveries', 'tail', '--endpoint', endpoint.id], {env})
      try {
        await tail.waitForStderr('Waiting for delivery attempts')
        await serve.close()
        await tail.waitForStderr('Stream dropped')
        serve = await serveOn()
        const {code, stderr} = await tail.done
        expect(code).toBe(1)
        expect(stderr).toContain(`Endpoint ${endpoint.id} is gone from the server: no attempt to it can come.`)
        expect(stderr).toContain('Code: not_found')
        expect(stderr).toContain('`tablepay webhooks create` registers an endpoint')
      } finally {
        await tail.interrupt()
      }
    } finally {
      await serve.close()
    }
  })
})

describe('deliveries tail and a snapshot restore', () => {
  it('with --endpoint, goes on past a restore that keeps the endpoint and exits 1 once one removes it', async () => {
    const [own, receiver] = await Promise.all([startServeFlags([]), startReceiver()])
    const origin = own.url.replace(/\/v1$/, '')
    const api = async (method: string, path: string, body?: unknown) => {
      const answer = await call(origin, method, `/v1${path}`, {body})
      expect(answer.status).toBeLessThan(300)
      return answer.body
    }
    await api('POST', '/sim/snapshots', {name: 'without'})
    const endpoint = await api('POST', '/webhook-endpoints', {url: receiver.url, event_types: ['check.created']})
    receiver.verifyWith(endpoint.secret)
    await api('POST', '/sim/snapshots', {name: 'with'})
    const tail = startCommand(['deliveries', 'tail', '--endpoint', endpoint.id], {env: own.env})
    try {
      await tail.waitForStderr('Waiting for delivery attempts')
      await api('POST', '/sim/snapshots/with/restore')
      // the restore's reset came before the push's messages: the tail looked at its endpoint and went on
      await api('PUT', '/checks/external/kept', checkWith([['a', 1, 100]]))
      await tail.waitForOutput('check.created')

      await api('POST', '/sim/snapshots/without/restore')
      const {code, stderr} = await tail.done
      expect(code).toBe(1)
      expect(stderr).toContain(
        `The account was restored from a snapshot without endpoint ${endpoint.id}: no attempt to it can come.`,
      )
      expect(stderr).toContain('Code: not_found')
      expect(stderr).toContain('`tablepay webhooks list` shows the endpoints the snapshot held')
    } finally {
      await tail.interrupt()
      await Promise.all([own.stop(), receiver.close()])
    }
  })

  it('prints an attempt made after the restore, though it is numbered as one it printed before', async () => {
    const [own, receiver] = await Promise.all([startServeFlags(['--retry-schedule', '1m']), startReceiver(() => 500)])
    const origin = own.url.replace(/\/v1$/, '')
    const api = async (method: string, path: string, body?: unknown) => {
      const answer = await call(origin, method, `/v1${path}`, {body})
      expect(answer.status).toBeLessThan(300)
      return answer.body
    }
    const tail = startCommand(['deliveries', 'tail', '--json'], {env: own.env})
    try {
      receiver.verifyWith((await api('POST', '/webhook-endpoints', {url: receiver.url})).secret)
      await tail.waitForStderr('Waiting for delivery attempts')
      /** The attempt numbers the tail printed, once it printed `n`. */
      const printed = async (n: number) => {
        // each wait ends once one more line has begun: the tail writes each line whole
        while (tail.stdout().split('\n').length <= n) await tail.waitForOutput(`${tail.stdout()}{`)
        return tail
          .stdout()
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line).attempt)
      }
      await api('PUT', '/checks/external/restored', checkWith([['a', 1, 100]]))
      await printed(1)
      // saved with one attempt made, its retry due in a minute
      await api('POST', '/sim/snapshots', {name: 'one-attempt'})
      await api('POST', '/sim/clock/advance', {seconds: 60})
      await printed(2)
      await api('POST', '/sim/snapshots/one-attempt/restore')
      await api('POST', '/sim/clock/advance', {seconds: 60})
      expect(await printed(3)).toEqual([1, 2, 2])
    } finally {
      await tail.interrupt()
      await Promise.all([own.stop(), receiver.close()])
    }
  })
})
