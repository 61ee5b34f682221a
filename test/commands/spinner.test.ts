import {createServer, type ServerResponse} from 'node:http'
import {type AddressInfo, createServer as createTcpServer, type Socket} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startCommand} from '../helpers/cli.js'
import {stderrAsTerminal} from '../helpers/terminal.js'

// A tablepay server that answers only when told: a fault's --delay, a stopped process. It answers a read of the
// clock at once, noting how the client named itself
const held: ServerResponse[] = []
const clockReads: (string | string[] | undefined)[] = []
const CLOCK = {object: 'clock', now: '2026-11-22T12:00:00.000Z', offset_seconds: 0, time_scale: 1, advance: null}
const server = createServer((req, res) => {
  req.resume()
  if (req.method !== 'GET' || req.url !== '/v1/sim/clock') return held.push(res)
  clockReads.push(req.headers['x-tablepay-client'])
  res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(CLOCK))
})
let env: Record<string, string>
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  // NO_COLOR empty: a person at a terminal, colours on
  env = {TABLEPAY_URL: url, TABLEPAY_API_KEY: 'tp_test_demo_write', NO_COLOR: ''}
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const answerHeld = (body: unknown = {object: 'list', data: [], has_more: false, next_cursor: null}) =>
  held.shift()!.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(body))

describe('a server that takes more than a second', () => {
  it('shows a spinner at a terminal while any command waits for its answer', async () => {
    const restore = stderrAsTerminal()
    try {
      const run = startCommand(['locations', 'list'], {env})
      await run.waitForStderr('Waiting for the tablepay server')
      answerHeld()
      const {code, stdout} = await run.done
      expect(code).toBe(0)
      expect(stdout).toContain('ID  NAME  TIMEZONE  CURRENCY')
    } finally {
      restore()
    }
  })

  it('clock advance reads its progress as the tails do: out of the request log', async () => {
    const restore = stderrAsTerminal()
    try {
      const run = startCommand(['clock', 'advance', '1h'], {env})
      await run.waitForStderr('Running what falls due')
      await expect.poll(() => clockReads.length, {timeout: 5000}).toBeGreaterThan(0)
      expect(clockReads).toEqual(clockReads.map(() => 'cli-tail'))
      answerHeld({...CLOCK, attempts: 0})
      expect((await run.done).code).toBe(0)
    } finally {
      restore()
    }
  })

  it("a command that shows its own wait shows only that one, not the request's", async () => {
    const restore = stderrAsTerminal()
    try {
      const run = startCommand(['webhooks', 'ping', 'we_slow'], {env})
      await run.waitForStderr('Waiting for the receiver')
      answerHeld({
        object: 'webhook_test',
        endpoint_id: 'we_slow',
        event_id: 'evt_slow',
        succeeded: true,
        status_code: 200,
        error: null,
        response_body: null,
        duration_ms: 1200,
      })
      const {code, stdout, stderr} = await run.done
      expect(code).toBe(0)
      expect(stdout).toContain('we_slow answered 200 in 1200 ms')
      expect(stderr).not.toContain('Waiting for the tablepay server')
    } finally {
      restore()
    }
  })
})

describe("serve's start that takes more than a second", () => {
  it('shows a spinner at a terminal naming the database without its password, then the refusal', async () => {
    // a PostgreSQL that takes connections and never answers, as one behind a stuck proxy: the start waits
    const sockets = new Set<Socket>()
    const postgres = createTcpServer((socket) => void sockets.add(socket))
    await new Promise<void>((resolve) => postgres.listen(0, '127.0.0.1', resolve))
    const port = (postgres.address() as AddressInfo).port
    const restore = stderrAsTerminal()
    try {
      const run = startCommand(
        ['serve', '--port', '0', '--database', `postgres://team:s3cret@127.0.0.1:${port}/sandbox`],
        {
          env: {NO_COLOR: ''},
        },
      )
      await run.waitForStderr(`Starting tablepay on postgres://127.0.0.1:${port}/sandbox`)
      for (const socket of sockets) socket.destroy()
      const {code, stderr} = await run.done
      expect(code).toBe(1)
      expect(stderr).toContain(`cannot connect to postgres://127.0.0.1:${port}/sandbox`)
      expect(stderr).not.toContain('s3cret')
    } finally {
      restore()
      // after a failed wait the start still waits on them: ended, it fails, and the in-process runner is free
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => postgres.close(resolve))
    }
  })
})
